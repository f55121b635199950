"""Variants that fail in every way a variant can fail

Run with --variant to pick eager variants (numpy_rows-compiled-cpu too); numpy is the reference.
"""

import os
import signal
import time

import numpy as np


def population(n, rng):
    return rng.random((n, 4))


def fitness_numpy(population):
    return population.sum(axis=1)


def fitness_numpy_raises(population):
    raise ValueError("negative weight in gene 3")


def fitness_numpy_short(population):
    return population.sum(axis=1)[:-1]


def fitness_numpy_strings(population):
    return np.array(["high"] * len(population))


def fitness_numpy_nan(population):
    out = population.sum(axis=1)
    out[[5, 7]] = np.nan
    return out


def fitness_numpy_exits(population):
    os._exit(1)


def fitness_numpy_killed(population):
    os.kill(os.getpid(), signal.SIGKILL)


def fitness_numpy_hangs(population):
    time.sleep(60)


def fitness_numpy_rows(population):
    # a loop over the rows with no break in it: torch.compile would unroll it, a copy of its body per row
    out = np.zeros(len(population))
    for i in range(len(population)):
        out[i] = np.sum(population[i] ** 2)
    return out


def fitness_numpy_last(population):
    return population.sum(axis=1)
