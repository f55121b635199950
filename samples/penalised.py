"""Rastrigin with a box penalty, written once in a helper module for NumPy and torch

The fitness lives in samples/helpers/penalties.py, generic over the array module (``xp``); this sample binds it
three ways: a functools.partial for NumPy, a lambda for torch, and a plain function for Python. Line verdicts
follow the code into the helper module, which the report shows beside the sample.
"""

import math
from functools import partial

import numpy as np
import torch

from helpers.penalties import penalised_rastrigin

POPULATION_SIZE = 100_000
GENES = 8


def population(n, rng):
    return rng.uniform(-5.12, 5.12, size=(n, GENES))


def fitness_python(individual):
    value = sum(x * x - 10 * math.cos(2 * math.pi * x) + 10 for x in individual)
    return value + 100.0 * sum(max(-4.0 - x, 0.0) + max(x - 4.0, 0.0) for x in individual)


fitness_numpy = partial(penalised_rastrigin, xp=np)
fitness_torch = lambda population: penalised_rastrigin(population, torch)  # noqa: E731
