"""A first draft: a per-row NumPy fitness, and a torch fitness that logs as it goes

How a fitness often looks before anyone profiles it. The NumPy variant applies a per-row function with
np.apply_along_axis: compiled, Dynamo breaks the graph inside NumPy and compiles the row function on its own,
called once per row. The torch variant prints the generation's best value, read with .item(): two breaks. At
its default 50,000 rows inspector must stay quick and small on it: its profiled passes and Python-line trace are
bounded (bench/cost.py measures that); the tests run it small.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 50_000
GENES = 8
BOUND = 2.0


def population(n, rng):
    return rng.uniform(-5.12, 5.12, size=(n, GENES))


def fitness_python(individual):
    value = sum(x * x - 10 * math.cos(2 * math.pi * x) + 10 for x in individual)
    excess = individual[0] + individual[1] - BOUND
    return value + (100.0 * excess**2 if excess > 0 else 0.0)


def row(individual):
    value = np.sum(individual**2 - 10 * np.cos(2 * np.pi * individual) + 10)
    if individual[0] + individual[1] > BOUND:
        value += 100.0 * (individual[0] + individual[1] - BOUND) ** 2
    return value


def fitness_numpy(population):
    return np.apply_along_axis(row, 1, population)


def fitness_torch(population):
    value = (population**2 - 10 * torch.cos(2 * math.pi * population) + 10).sum(1)
    value = value + 100.0 * torch.clamp(population[:, 0] + population[:, 1] - BOUND, min=0) ** 2
    print(f"best of this generation: {value.min().item():.3f}")
    return value
