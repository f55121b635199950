"""Decoded genes: a scalar loop that the C++ compiler vectorizes by itself

Each individual has three genes in [0, 1]: the first two are coordinates, decoded to the box [-5, 10] x [-5, 10]
and kept as float32 for an archive; the third, a discrete choice, is decoded elsewhere. Inductor leaves the
decoding loop scalar (torch 2.13: its inner loop over two genes is too short, with too few operations, to be worth
vectorizing; torch 2.1 vectorizes no float64 code), and GCC vectorizes it anyway: float32 stores cannot alias the
float64 loads, so an individual's two coordinates are computed in one SIMD register. The line verdicts show both,
and follow the machine code.
"""

import numpy as np
import torch

POPULATION_SIZE = 200_000
LOW, HIGH = -5.0, 10.0


def population(n, rng):
    return rng.uniform(0, 1, size=(n, 3))


def fitness_python(genes):
    return tuple(float(np.float32(LOW + (HIGH - LOW) * gene)) for gene in genes[:2])


def fitness_numpy(genes):
    return (LOW + (HIGH - LOW) * genes[:, :2]).astype(np.float32)


def fitness_torch(genes):
    return (LOW + (HIGH - LOW) * genes[:, :2]).to(torch.float32)
