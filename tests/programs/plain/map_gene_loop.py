#!/usr/bin/env python
"""Rastrigin minimisation, DEAP-like structure but no deap dependency.

    python map_gene_loop.py [POPULATION] [NGEN]
"""
import math
import random
import sys

IND_SIZE = 30
CXPB, MUTPB = 0.7, 0.3


class Individual(list):
    """A list of genes that also carries its fitness (a tuple, like DEAP)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.fitness = None


def evaluate(individual):
    value = 10.0 * len(individual)
    for i in range(len(individual)):
        x = individual[i]
        value += x * x - 10.0 * math.cos(2.0 * math.pi * x)
    return (value,)


def cx_two_point(ind1, ind2):
    size = len(ind1)
    a = random.randint(1, size - 1)
    b = random.randint(1, size - 1)
    if b < a:
        a, b = b, a
    ind1[a:b], ind2[a:b] = ind2[a:b], ind1[a:b]
    ind1.fitness = ind2.fitness = None


def mut_gaussian(ind, sigma=0.2, indpb=0.1):
    for i in range(len(ind)):
        if random.random() < indpb:
            ind[i] += random.gauss(0, sigma)
    ind.fitness = None


def sel_tournament(pop, k, tournsize=3):
    chosen = []
    for _ in range(k):
        aspirants = [random.choice(pop) for _ in range(tournsize)]
        chosen.append(min(aspirants, key=lambda ind: ind.fitness[0]))
    return chosen


def main(pop_size=4000, ngen=60):
    random.seed(64)
    population = [Individual(random.uniform(-5.12, 5.12) for _ in range(IND_SIZE))
                  for _ in range(pop_size)]

    fitnesses = list(map(evaluate, population))
    for ind, fit in zip(population, fitnesses):
        ind.fitness = fit

    for g in range(1, ngen + 1):
        offspring = [Individual(ind) for ind in sel_tournament(population, len(population))]

        for child1, child2 in zip(offspring[::2], offspring[1::2]):
            if random.random() < CXPB:
                cx_two_point(child1, child2)
        for mutant in offspring:
            if random.random() < MUTPB:
                mut_gaussian(mutant)

        # DEAP only re-evaluates the invalid ones; we just do everybody
        fitnesses = list(map(evaluate, offspring))
        for ind, fit in zip(offspring, fitnesses):
            ind.fitness = fit
        population = offspring

        if g % 10 == 0:
            fits = [ind.fitness[0] for ind in population]
            mean = sum(fits) / len(fits)
            print("-- Generation %i --  min %.4f  avg %.4f" % (g, min(fits), mean))

    best = min(population, key=lambda ind: ind.fitness[0])
    print("Best individual has fitness %.6f" % best.fitness[0])


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
