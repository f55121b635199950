"""A NumPy GA whose fitness takes the whole population but scores it a row at a time, its constraint a Python `if`
(the blog's constrained polynomial, written as people first write it over an array).

usage: python row_loop.py [POP_SIZE] [GENERATIONS]
"""

import sys

import numpy as np

GENES = 10
BOUND = 1.0


def fitness(pop):
    fit = np.zeros(len(pop))
    for i in range(len(pop)):
        x = pop[i]
        value = np.sum(x ** 2 - 3.0 * x + 1.0)
        if x[0] + x[1] > BOUND:
            value = value + 100.0 * (x[0] + x[1] - BOUND) ** 2
        fit[i] = value
    return fit


def main(size, generations, seed=0):
    rng = np.random.default_rng(seed)
    pop = rng.uniform(-2.0, 2.0, size=(size, GENES))
    for _ in range(generations):
        f = fitness(pop)
        parents = pop[np.argsort(f)[: size // 2]]
        children = parents + rng.normal(0.0, 0.1, size=parents.shape)
        pop = np.concatenate([parents, children])
    print(f"best {fitness(pop).min():.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000, int(sys.argv[2]) if len(sys.argv) > 2 else 6)
