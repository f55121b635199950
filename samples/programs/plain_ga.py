"""The blog's example 2 written the plain way: a genetic algorithm on Python lists, nothing compiled yet.

    python samples/programs/plain_ga.py [POPULATION] [GENERATIONS]

Maximises f(x, y, z) = x**2 + 2*y**2 + 3*z**2 + 4*x*y - 5*y*z subject to x >= 1, 3 < y <= 7, z < 0, x + y + z >= 3
and x**2 + z**2 <= 10, as the blog's pure-Python version does: `fitness(individual)` returns -f for a feasible
individual and math.inf for one that breaks a constraint (lower is better), the constraints checked one by one with
Python conditionals. Each generation evaluates the whole population with `[fitness(ind) for ind in population]`,
keeps the best (truncation selection) and breeds the next generation from them by random steps, all in plain Python
lists and the standard library.

`inspector run samples/programs/plain_ga.py` shows where its time goes and what compiling the fitness would give.
"""

import math
import random
import sys

LOW, HIGH = -25.0, 25.0
ELITE = 200
MUTATION_STEP = 0.5


def fitness(individual):
    x = individual[0]
    y = individual[1]
    z = individual[2]
    # the constraints, one by one; an infeasible individual gets the worst fitness
    if x < 1:
        return math.inf
    elif y <= 3:
        return math.inf
    elif y > 7:
        return math.inf
    elif z >= 0:
        return math.inf
    elif x + y + z < 3:
        return math.inf
    elif x**2 + z**2 > 10:
        return math.inf
    else:
        return -(x**2 + 2 * y**2 + 3 * z**2 + 4 * x * y - 5 * y * z)


def random_individual():
    return [LOW + (HIGH - LOW) * random.random(), LOW + (HIGH - LOW) * random.random(),
            LOW + (HIGH - LOW) * random.random()]


def breed(parents, size):
    """Children of the parents: each a parent moved by a small random step on each gene."""
    step = MUTATION_STEP
    children = []
    for i in range(size):
        x, y, z = parents[i % len(parents)]
        children.append([x + step * (random.random() - 0.5), y + step * (random.random() - 0.5),
                         z + step * (random.random() - 0.5)])
    return children


def main(argv):
    population_size = int(argv[1]) if len(argv) > 1 else 200_000
    generations = int(argv[2]) if len(argv) > 2 else 15
    random.seed(2024)

    # the search space sampled at random, then searched around the best individuals found so far
    population = [random_individual() for _ in range(population_size)]
    for generation in range(generations):
        fitnesses = [fitness(ind) for ind in population]
        order = sorted(range(population_size), key=fitnesses.__getitem__)
        elite = [population[i] for i in order[:ELITE]]
        if generation % 5 == 0:
            feasible = sum(1 for f in fitnesses if f < math.inf)
            print(f"generation {generation:3d}: best {fitnesses[order[0]]:.4f}, {feasible} feasible")
        population = elite + breed(elite, population_size - ELITE)

    fitnesses = [fitness(ind) for ind in population]
    best = min(range(population_size), key=fitnesses.__getitem__)
    x, y, z = population[best]
    print(f"best after {generations} generations: f = {-fitnesses[best]:.4f} at x = {x:.4f}, y = {y:.4f}, z = {z:.4f}")


if __name__ == "__main__":
    main(sys.argv)
