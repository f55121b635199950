"""Two objectives per individual: a ZDT1-style fitness that returns one row of two values per individual

Multi-objective algorithms (NSGA-II, pymoo's problems) score each individual with several objectives: the
variants return shape (n, 2), and the Python one two floats per individual. The cross-check compares them
elementwise.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 100_000
GENES = 10


def population(n, rng):
    return rng.uniform(0, 1, size=(n, GENES))


def fitness_python(x):
    g = 1 + 9 * sum(x[1:]) / (len(x) - 1)
    return x[0], g * (1 - math.sqrt(x[0] / g))


def fitness_numpy(x):
    g = 1 + 9 * x[:, 1:].sum(axis=1) / (x.shape[1] - 1)
    return np.stack([x[:, 0], g * (1 - np.sqrt(x[:, 0] / g))], axis=1)


def fitness_torch(x):
    g = 1 + 9 * x[:, 1:].sum(dim=1) / (x.shape[1] - 1)
    return torch.stack([x[:, 0], g * (1 - torch.sqrt(x[:, 0] / g))], dim=1)
