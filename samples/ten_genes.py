"""Ten genes, eight constraints: a G7-style penalty whose kernel holds three loop nests

Minimise the G7 benchmark objective of ten variables subject to eight inequality constraints g_i(x) <= 0,
with a static penalty: f(x) + 1000 * sum(max(g_i(x), 0)). One individual per row, so every gene is a strided
column. Inductor fuses the whole fitness into one C++ kernel of three loop nests: a scalar loop computing the
objective and all eight constraints (strided loads), a vectorized reduction summing the penalty, and a
vectorized loop for the final add. Which lines ran vectorized is a property of each nest, not of the kernel.
"""

import numpy as np
import torch

POPULATION_SIZE = 100_000


def population(n, rng):
    return rng.uniform(-10, 10, size=(n, 10))


def objective_python(x):
    return (x[0]**2 + x[1]**2 + x[0] * x[1] - 14 * x[0] - 16 * x[1] + (x[2] - 10) ** 2 + 4 * (x[3] - 5) ** 2
            + (x[4] - 3) ** 2 + 2 * (x[5] - 1) ** 2 + 5 * x[6]**2 + 7 * (x[7] - 11) ** 2 + 2 * (x[8] - 10) ** 2
            + (x[9] - 7) ** 2 + 45)


def constraints_python(x):
    return [-105 + 4 * x[0] + 5 * x[1] - 3 * x[6] + 9 * x[7],
            10 * x[0] - 8 * x[1] - 17 * x[6] + 2 * x[7],
            -8 * x[0] + 2 * x[1] + 5 * x[8] - 2 * x[9] - 12,
            3 * (x[0] - 2) ** 2 + 4 * (x[1] - 3) ** 2 + 2 * x[2]**2 - 7 * x[3] - 120,
            5 * x[0]**2 + 8 * x[1] + (x[2] - 6) ** 2 - 2 * x[3] - 40,
            x[0]**2 + 2 * (x[1] - 2) ** 2 - 2 * x[0] * x[1] + 14 * x[4] - 6 * x[5],
            0.5 * (x[0] - 8) ** 2 + 2 * (x[1] - 4) ** 2 + 3 * x[4]**2 - x[5] - 30,
            -3 * x[0] + 6 * x[1] + 12 * (x[8] - 8) ** 2 - 7 * x[9]]


def fitness_python(individual):
    return objective_python(individual) + 1000 * sum(max(g, 0.0) for g in constraints_python(individual))


def objective(x):
    x0, x1, x2, x3, x4 = x[:, 0], x[:, 1], x[:, 2], x[:, 3], x[:, 4]
    x5, x6, x7, x8, x9 = x[:, 5], x[:, 6], x[:, 7], x[:, 8], x[:, 9]
    return (x0**2 + x1**2 + x0 * x1 - 14 * x0 - 16 * x1 + (x2 - 10) ** 2 + 4 * (x3 - 5) ** 2
            + (x4 - 3) ** 2 + 2 * (x5 - 1) ** 2 + 5 * x6**2 + 7 * (x7 - 11) ** 2 + 2 * (x8 - 10) ** 2
            + (x9 - 7) ** 2 + 45)


def constraints(x):
    x0, x1, x2, x3, x4 = x[:, 0], x[:, 1], x[:, 2], x[:, 3], x[:, 4]
    x5, x6, x7, x8, x9 = x[:, 5], x[:, 6], x[:, 7], x[:, 8], x[:, 9]
    g1 = -105 + 4 * x0 + 5 * x1 - 3 * x6 + 9 * x7
    g2 = 10 * x0 - 8 * x1 - 17 * x6 + 2 * x7
    g3 = -8 * x0 + 2 * x1 + 5 * x8 - 2 * x9 - 12
    g4 = 3 * (x0 - 2) ** 2 + 4 * (x1 - 3) ** 2 + 2 * x2**2 - 7 * x3 - 120
    g5 = 5 * x0**2 + 8 * x1 + (x2 - 6) ** 2 - 2 * x3 - 40
    g6 = x0**2 + 2 * (x1 - 2) ** 2 - 2 * x0 * x1 + 14 * x4 - 6 * x5
    g7 = 0.5 * (x0 - 8) ** 2 + 2 * (x1 - 4) ** 2 + 3 * x4**2 - x5 - 30
    g8 = -3 * x0 + 6 * x1 + 12 * (x8 - 8) ** 2 - 7 * x9
    return g1, g2, g3, g4, g5, g6, g7, g8


def fitness_numpy(solutions):
    f = objective(solutions)
    g = np.stack(constraints(solutions), axis=1)
    penalty = np.clip(g, 0, None).sum(axis=1)
    return f + 1000 * penalty


def fitness_torch(solutions):
    f = objective(solutions)
    g = torch.stack(constraints(solutions), dim=1)
    penalty = torch.clamp(g, min=0).sum(dim=1)
    return f + 1000 * penalty
