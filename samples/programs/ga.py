"""A small genetic algorithm whose fitness is compiled with @torch.compile, written as people write it.

    python samples/programs/ga.py [POPULATION] [GENERATIONS]

Not a sample (no population(n, rng)): a program, for `inspector run samples/programs/ga.py 5000`. Its fitness logs
the generation's best with .item() and branches on it (graph breaks), and the population grows once, halfway
(a recompile on its size); the logged best, a Python float that changes every generation, is guarded on too.
"""

import sys

import torch

GENES = 10
BOUND = 2.0


@torch.compile
def fitness(pop, penalty):
    value = (pop**2 - 10 * torch.cos(2 * torch.pi * pop) + 10).sum(1)
    excess = torch.clamp(pop[:, 0] + pop[:, 1] - BOUND, min=0)
    value = value + penalty * excess**2
    best = value.min().item()
    print(f"  best of this generation: {best:.3f}")
    if best < 50.0:
        value = value + best * 0.0
    return value


def evolve(pop, generations):
    n = len(pop)
    for generation in range(generations):
        if generation == generations // 2:  # grow once
            pop = torch.cat([pop, pop[: n // 2] + 0.01 * torch.randn(n // 2, GENES)])
        scores = fitness(pop, 100.0)
        parents = pop[torch.topk(-scores, len(pop) // 2).indices]
        pop = torch.cat([parents, parents + 0.1 * torch.randn_like(parents)])
    return pop


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 5000
    generations = int(argv[2]) if len(argv) > 2 else 20
    torch.manual_seed(0)
    pop = evolve(torch.empty(n, GENES).uniform_(-5.12, 5.12), generations)
    print(f"done: {generations} generations, population {len(pop):,}")


if __name__ == "__main__":
    main(sys.argv)
