"""One compiled torch variant (for the compiler-failure test)"""

import numpy as np
import torch


def population(n, rng):
    return rng.random((n, 8))


def fitness_torch(population):
    return (population * population).sum(dim=1)
