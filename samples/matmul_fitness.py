"""Neuroevolution of a tiny regression network: a matrix product between parallel and serial kernels

Each individual holds the 8 weights and the bias of a one-neuron tanh network; its fitness is minus
the mean squared error over a fixed training set of 64 samples. Scoring every individual on every
sample is one matrix product, which torch.compile hands to a BLAS library call (an extern kernel)
instead of generating a loop; the error is a parallel reduction per individual. The features are
standardised inside the fitness, on only 64 x 8 numbers: too few for threads, so a serial kernel.
The PyTorch version guards against NaN with a Python `if` on a tensor, which breaks the graph.
"""

import math

import numpy as np
import torch

POPULATION_SIZE = 50_000
FEATURES = 8
_rng = np.random.default_rng(1234)
DATA = _rng.normal(2.0, 3.0, size=(64, FEATURES))
TARGETS = np.tanh((DATA - DATA.mean(axis=0)) / DATA.std(axis=0) @ _rng.normal(size=FEATURES))
DATA_TORCH, TARGETS_TORCH = torch.from_numpy(DATA), torch.from_numpy(TARGETS)
SCALED_LIST = ((DATA - DATA.mean(axis=0)) / DATA.std(axis=0)).tolist()
TARGETS_LIST = TARGETS.tolist()


def population(n, rng):
    return rng.normal(0.0, 1.0, size=(n, FEATURES + 1))


def fitness_python(individual):
    *weights, bias = individual
    error = 0.0
    for row, target in zip(SCALED_LIST, TARGETS_LIST):
        output = math.tanh(sum(w * x for w, x in zip(weights, row)) + bias)
        error += (output - target) ** 2
    return -error / len(TARGETS_LIST)


def fitness_numpy(population):
    scaled = (DATA - DATA.mean(axis=0)) / DATA.std(axis=0)
    outputs = np.tanh(scaled @ population[:, :FEATURES].T + population[:, FEATURES])
    return -np.mean((outputs - TARGETS[:, None]) ** 2, axis=0)


def fitness_torch(population):
    weights, bias = population[:, :FEATURES], population[:, FEATURES]
    scaled = (DATA_TORCH - DATA_TORCH.mean(dim=0)) / DATA_TORCH.std(dim=0, correction=0)
    outputs = torch.tanh(scaled @ weights.T + bias)
    loss = ((outputs - TARGETS_TORCH[:, None]) ** 2).mean(dim=0)
    if torch.isnan(loss).any():
        loss = torch.nan_to_num(loss, nan=math.inf)
    return -loss
