"""Constrained trigonometric function: the blog's third example

Minimise f(x, y, z) = sin(x) + x^2 - 2cos(y) + y^2 + z^2 subject to x >= 0, 0 <= y <= pi, z <= 5,
x + z >= 1 and cos(y) + z >= 0.5. Fitness is -f for feasible individuals and +inf otherwise.
The blog timed 900,000 individuals: 240 ms in pure Python, 82 ms in NumPy, 36.8 ms compiled and
22.6 ms on CUDA.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 900_000


def population(n, rng):
    return rng.uniform(-10, 10, size=(n, 3))


def objective_python(individual):
    x, y, z = individual
    return math.sin(x) + x**2 - 2 * math.cos(y) + y**2 + z**2


def feasible_python(individual):
    x, y, z = individual
    if x < 0:
        return False
    if not (0 <= y <= math.pi):
        return False
    if z > 5:
        return False
    if x + z < 1:
        return False
    if math.cos(y) + z < 0.5:
        return False
    return True


def fitness_python(individual):
    if not feasible_python(individual):
        return math.inf
    return -objective_python(individual)


def objective_numpy(solutions):
    x = solutions[:, 0]
    y = solutions[:, 1]
    z = solutions[:, 2]
    return np.sin(x) + x**2 - 2 * np.cos(y) + y**2 + z**2


def check_constraints_numpy(solutions):
    x = solutions[:, 0]
    y = solutions[:, 1]
    z = solutions[:, 2]
    return (x >= 0) & (y >= 0) & (y <= np.pi) & (z <= 5) & (x + z >= 1) & (np.cos(y) + z >= 0.5)


def fitness_numpy(solutions):  # inspector: graphs=1
    valid = check_constraints_numpy(solutions)
    return np.where(valid, -objective_numpy(solutions), np.inf)


def objective_torch(solutions):
    x, y, z = solutions.unbind(dim=1)
    return torch.sin(x) + x**2 - 2 * torch.cos(y) + y**2 + z**2


def check_constraints_torch(solutions):
    x, y, z = solutions.unbind(dim=1)
    return (x >= 0) & (y >= 0) & (y <= math.pi) & (z <= 5) & (x + z >= 1) & (torch.cos(y) + z >= 0.5)


def fitness_torch(solutions):  # inspector: graphs=1
    valid = check_constraints_torch(solutions)
    return torch.where(valid, -objective_torch(solutions), torch.inf)
