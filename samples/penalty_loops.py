"""Rastrigin with pairwise constraints: loops over genes and constraints, and apply_along_axis

Minimise the 10-gene Rastrigin function subject to x[a] + x[b] <= bound for each (a, b, bound) in
CONSTRAINTS. A violated constraint costs PENALTY times its squared violation; an individual whose
total violation exceeds MAX_VIOLATION gets -inf (the death penalty). The vectorised versions loop
in Python over the genes and over the constraints, which torch.compile unrolls into one parallel
kernel, and set the death penalty by boolean-mask assignment. The `apply_along_axis` version is
not compiled as a whole: the row function runs once per individual.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 20_000
GENES = 10
PENALTY = 100.0
MAX_VIOLATION = 25.0
CONSTRAINTS = [(0, 1, 2.0), (2, 3, 1.0), (4, 5, 0.0), (6, 7, -1.0), (8, 9, 3.0), (0, 9, 2.0)]


def population(n, rng):
    return rng.uniform(-5.12, 5.12, size=(n, GENES))


def fitness_python(individual):
    cost = 0.0
    for x in individual:
        cost += x * x - 10 * math.cos(2 * math.pi * x) + 10
    violation = 0.0
    for a, b, bound in CONSTRAINTS:
        excess = individual[a] + individual[b] - bound
        if excess > 0:
            violation += excess * excess
    if violation > MAX_VIOLATION:
        return -math.inf
    return -(cost + PENALTY * violation)


def fitness_numpy(population):
    cost = np.zeros(len(population))
    for j in range(GENES):
        x = population[:, j]
        cost += x**2 - 10 * np.cos(2 * np.pi * x) + 10
    violation = np.zeros(len(population))
    for a, b, bound in CONSTRAINTS:
        excess = population[:, a] + population[:, b] - bound
        violation += np.maximum(excess, 0) ** 2
    fitness = -(cost + PENALTY * violation)
    fitness[violation > MAX_VIOLATION] = -np.inf
    return fitness


def row_fitness(individual):
    cost = np.sum(individual**2 - 10 * np.cos(2 * np.pi * individual) + 10)
    violation = 0.0
    for a, b, bound in CONSTRAINTS:
        violation += max(individual[a] + individual[b] - bound, 0) ** 2
    if violation > MAX_VIOLATION:
        return -np.inf
    return -(cost + PENALTY * violation)


def fitness_numpy_apply(population):
    return np.apply_along_axis(row_fitness, 1, population)


def fitness_torch(population):
    cost = torch.zeros(len(population), dtype=population.dtype)
    for j in range(GENES):
        x = population[:, j]
        cost += x * x - 10 * torch.cos(2 * math.pi * x) + 10
    violation = torch.zeros_like(cost)
    for a, b, bound in CONSTRAINTS:
        excess = population[:, a] + population[:, b] - bound
        violation += torch.clamp(excess, min=0) ** 2
    fitness = -(cost + PENALTY * violation)
    fitness[violation > MAX_VIOLATION] = -math.inf
    return fitness
