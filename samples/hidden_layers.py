"""Neuroevolution with equal hidden widths: one tanh kernel launched twice per call

Each individual holds the weights of a small network with two hidden layers of equal width and an output
layer, all 8 x 8; its fitness is minus the mean squared error over 16 fixed samples. Each layer is a batched
matrix product, which torch.compile hands to a library call (bmm); the tanh after each of the two hidden layers
is the same generated kernel, launched once per layer: one kernel, two launches, its time summed over both.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 20_000
WIDTH = 8
SAMPLES = 16
_rng = np.random.default_rng(7)
DATA = _rng.normal(size=(SAMPLES, WIDTH))
TARGET = _rng.normal(size=SAMPLES)
DATA_TORCH, TARGET_TORCH = torch.from_numpy(DATA), torch.from_numpy(TARGET)
DATA_LIST, TARGET_LIST = DATA.tolist(), TARGET.tolist()
LAYER = WIDTH * WIDTH


def population(n, rng):
    return rng.normal(0.0, 0.5, size=(n, 3 * LAYER))


def fitness_python(individual):
    layers = [[individual[k * LAYER + i * WIDTH:k * LAYER + (i + 1) * WIDTH] for i in range(WIDTH)] for k in range(3)]
    error = 0.0
    for row, target in zip(DATA_LIST, TARGET_LIST):
        for k, w in enumerate(layers):
            row = [sum(row[i] * w[i][j] for i in range(WIDTH)) for j in range(WIDTH)]
            row = [math.tanh(v) for v in row] if k < 2 else row
        error += (sum(row) - target) ** 2
    return -error / SAMPLES


def fitness_numpy(population):
    n = len(population)
    w1 = population[:, :LAYER].reshape(n, WIDTH, WIDTH)
    w2 = population[:, LAYER:2 * LAYER].reshape(n, WIDTH, WIDTH)
    w3 = population[:, 2 * LAYER:].reshape(n, WIDTH, WIDTH)
    h1 = np.tanh(DATA @ w1)
    h2 = np.tanh(h1 @ w2)
    out = (h2 @ w3).sum(axis=2)
    return -((out - TARGET) ** 2).mean(axis=1)


def fitness_torch(population):
    n = population.shape[0]
    w1 = population[:, :LAYER].reshape(n, WIDTH, WIDTH)
    w2 = population[:, LAYER:2 * LAYER].reshape(n, WIDTH, WIDTH)
    w3 = population[:, 2 * LAYER:].reshape(n, WIDTH, WIDTH)
    h1 = torch.tanh(DATA_TORCH @ w1)
    h2 = torch.tanh(h1 @ w2)
    out = (h2 @ w3).sum(dim=2)
    return -((out - TARGET_TORCH) ** 2).mean(dim=1)
