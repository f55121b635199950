"""Constrained polynomial GA on plain Python lists.

usage: python lists_if_chain.py [POP_SIZE] [GENERATIONS]
"""

import random
import sys

N_GENES = 60
LOW, HIGH = -5.0, 5.0
SUM_BOUND = 40.0        # genes shouldn't add up to more than this
TOURNAMENT = 3
MUT_RATE = 0.05
MUT_SIGMA = 0.3


def fitness(ind):
    # polynomial: sum of a*x^2 + b*x^3/10 - c*x  (lower is better)
    total = 0.0
    s = 0.0
    for i in range(len(ind)):
        x = ind[i]
        total += (i % 5 + 1) * x**2 + 0.1 * x**3 - 2.0 * x
        s += x
    # constraint penalties
    if s > SUM_BOUND:
        total += 100.0 * (s - SUM_BOUND)
    elif s < -SUM_BOUND:
        total += 50.0 * (-SUM_BOUND - s)
    elif ind[0] < 0:
        total += 10.0
    else:
        total -= 1.0   # small bonus for a feasible individual
    return total


def tournament(pop, fits, k=TOURNAMENT):
    best = None
    for _ in range(k):
        j = random.randrange(len(pop))
        if best is None or fits[j] < fits[best]:
            best = j
    return pop[best]


def crossover(a, b):
    cut = random.randint(1, len(a) - 1)
    return a[:cut] + b[cut:], b[:cut] + a[cut:]


def mutate(ind):
    for i in range(len(ind)):
        if random.random() < MUT_RATE:
            ind[i] = min(HIGH, max(LOW, ind[i] + random.gauss(0.0, MUT_SIGMA)))
    return ind


def main():
    pop_size = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    n_gen = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    random.seed(42)

    pop = [[random.uniform(LOW, HIGH) for _ in range(N_GENES)] for _ in range(pop_size)]
    best_ever = None

    for gen in range(n_gen):
        fits = [fitness(ind) for ind in pop]
        i_best = min(range(len(pop)), key=fits.__getitem__)
        if best_ever is None or fits[i_best] < best_ever[0]:
            best_ever = (fits[i_best], list(pop[i_best]))
        if gen % 10 == 0 or gen == n_gen - 1:
            print(f"gen {gen:3d}  best {fits[i_best]:10.3f}  mean {sum(fits) / len(fits):10.3f}")

        # elitism: keep the best one as is
        new_pop = [list(pop[i_best])]
        while len(new_pop) < pop_size:
            c1, c2 = crossover(tournament(pop, fits), tournament(pop, fits))
            new_pop.append(mutate(c1))
            if len(new_pop) < pop_size:
                new_pop.append(mutate(c2))
        pop = new_pop

    print(f"best fitness {best_ever[0]:.4f} after {n_gen} generations (population {pop_size})")


if __name__ == "__main__":
    main()
