"""A weighted sum of the genes as one matrix product: compiled, it builds no kernel of its own (one library call),
so its compile costs no C++ build: what the tests of a rerun's compile use (tests/e2e/test_warm.py)."""

import numpy as np
import torch

WEIGHTS = np.linspace(1.0, 2.0, 6).reshape(6, 1)
WEIGHTS_TORCH = torch.from_numpy(WEIGHTS)


def population(n, rng):
    return rng.normal(0.0, 1.0, size=(n, 6))


def fitness_numpy(population):
    return (population @ WEIGHTS)[:, 0]


def fitness_torch(population):
    return (population @ WEIGHTS_TORCH)[:, 0]
