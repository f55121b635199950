"""Five benchmark problems in one file: each a family of Python, NumPy and torch variants

Sphere, Rastrigin, Rosenbrock, Ackley and Griewank, on eight genes. Variants with the same suffix form a family
(fitness_numpy_ackley, fitness_torch_ackley, ...): each is checked against its own family's reference, and its
speedups are within its family, never against another problem's.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 100_000
GENES = 8


def population(n, rng):
    return rng.uniform(-5, 5, size=(n, GENES))


def fitness_python_sphere(x):
    return sum(v * v for v in x)


def fitness_numpy_sphere(x):
    return (x**2).sum(axis=1)


def fitness_torch_sphere(x):
    return (x**2).sum(dim=1)


def fitness_python_rastrigin(x):
    return sum(v * v - 10 * math.cos(2 * math.pi * v) + 10 for v in x)


def fitness_numpy_rastrigin(x):
    return (x**2 - 10 * np.cos(2 * np.pi * x) + 10).sum(axis=1)


def fitness_torch_rastrigin(x):
    return (x**2 - 10 * torch.cos(2 * math.pi * x) + 10).sum(dim=1)


def fitness_python_rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(len(x) - 1))


def fitness_numpy_rosenbrock(x):
    return (100 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1 - x[:, :-1]) ** 2).sum(axis=1)


def fitness_torch_rosenbrock(x):
    return (100 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1 - x[:, :-1]) ** 2).sum(dim=1)


def fitness_python_ackley(x):
    n = len(x)
    return (-20 * math.exp(-0.2 * math.sqrt(sum(v * v for v in x) / n))
            - math.exp(sum(math.cos(2 * math.pi * v) for v in x) / n) + 20 + math.e)


def fitness_numpy_ackley(x):
    n = x.shape[1]
    return (-20 * np.exp(-0.2 * np.sqrt((x**2).sum(axis=1) / n))
            - np.exp(np.cos(2 * np.pi * x).sum(axis=1) / n) + 20 + np.e)


def fitness_torch_ackley(x):
    n = x.shape[1]
    return (-20 * torch.exp(-0.2 * torch.sqrt((x**2).sum(dim=1) / n))
            - torch.exp(torch.cos(2 * math.pi * x).sum(dim=1) / n) + 20 + math.e)


def fitness_python_griewank(x):
    return 1 + sum(v * v for v in x) / 4000 - math.prod(math.cos(v / math.sqrt(i + 1)) for i, v in enumerate(x))


def fitness_numpy_griewank(x):
    i = np.sqrt(np.arange(1, x.shape[1] + 1))
    return 1 + (x**2).sum(axis=1) / 4000 - np.cos(x / i).prod(axis=1)


def fitness_torch_griewank(x):
    i = torch.sqrt(torch.arange(1, x.shape[1] + 1, dtype=x.dtype))
    return 1 + (x**2).sum(dim=1) / 4000 - torch.cos(x / i).prod(dim=1)
