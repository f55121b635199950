"""0/1 knapsack with an overweight penalty: extern matmul, graph breaks and eager lines

Each individual picks some of 30 items; its fitness is the value of what it picked, less PENALTY
per unit of weight above CAPACITY. The totals are a matrix product, which compiles to a BLAS call
rather than a generated kernel. The NumPy version penalises with a data-dependent `if` and
boolean-mask indexing, the PyTorch version counts the overweight individuals with `.item()` and
prints them: each of these makes torch.compile break the graph and run a line as plain Python.
"""

import numpy as np
import torch

POPULATION_SIZE = 100_000
CAPACITY = 300.0
PENALTY = 10.0
ITEMS = np.array([  # (value, weight) per item; whole numbers, so every variant sums them exactly
    (95, 12), (66, 33), (71, 58), (90, 30), (62, 49), (79, 55), (85, 50), (30, 39), (14, 29), (37, 33),
    (35, 19), (88, 32), (92, 25), (10, 18), (54, 59), (83, 5), (21, 10), (81, 15), (20, 58), (52, 43),
    (83, 53), (37, 16), (40, 44), (35, 25), (74, 31), (32, 5), (99, 38), (50, 50), (53, 41), (55, 13),
], dtype=np.float64)
ITEMS_LIST = ITEMS.tolist()
ITEMS_TORCH = torch.from_numpy(ITEMS)


def population(n, rng):
    return rng.random((n, len(ITEMS))) < 0.3


def fitness_python(individual):
    value = weight = 0.0
    for picked, (v, w) in zip(individual, ITEMS_LIST):
        if picked:
            value += v
            weight += w
    if weight > CAPACITY:
        return value - PENALTY * (weight - CAPACITY)
    return value


def fitness_numpy(population):
    totals = population @ ITEMS
    value, weight = totals[:, 0], totals[:, 1]
    fitness = value.copy()
    over = weight > CAPACITY
    if over.any():
        fitness[over] -= PENALTY * (weight[over] - CAPACITY)
    return fitness


def fitness_torch(population):
    totals = population.double() @ ITEMS_TORCH
    value, weight = totals.unbind(dim=1)
    excess = torch.clamp(weight - CAPACITY, min=0)
    overweight = (excess > 0).sum().item()
    print(f"knapsack: {overweight} of {len(population)} individuals overweight")
    return value - PENALTY * excess
