#!/usr/bin/env python
"""A NumPy GA as people first write it: each individual an array of its own, kept in a list (or, with ``array``, the
rows of one 2-D array made at each generation), its fitness computed one individual at a time.

    python list_of_arrays.py [POPULATION] [NGEN] [list|array]
"""
import sys

import numpy as np

GENES = 12


def fitness(ind):
    total = 0.0
    for g in ind:
        total += g * g - np.cos(6.0 * g)
    if ind[0] > 0.5:
        total += 1.0
    return total


def main(size=3000, generations=15, held="list"):
    rng = np.random.default_rng(7)
    population = [rng.uniform(-2, 2, GENES) for _ in range(size)]
    for gen in range(generations):
        if held == "array":
            population = np.array(population)
        scores = [fitness(ind) for ind in population]
        ranked = np.argsort(scores)[: size // 2]
        parents = [population[i] for i in ranked]
        children = [p + rng.normal(0, 0.1, GENES) for p in parents]
        population = parents + children
        if gen % 5 == 0:
            print(f"gen {gen}: best {min(scores):.4f}")


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:3]], *sys.argv[3:4])
