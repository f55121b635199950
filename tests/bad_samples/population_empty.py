"""population() returns an empty array"""

import numpy as np


def population(n, rng):
    return np.empty((0, 3))


def fitness_numpy(population):
    return population.sum(axis=1)
