"""<script>alert(1)</script> "quoted" & 'single'

A hostile title and error message: the report must show them as text, never run them.
"""

# Saved as latin-1 without a coding line; Python 3.11 imports a non-UTF-8 byte in a comment: café

import os

import numpy as np


def population(n, rng):
    return rng.random((n, 4))


def fitness_numpy(population):
    return population.sum(axis=1)


def fitness_numpy_hostile(population):
    raise ValueError("<script>alert(1)</script> \"q\" 'q' " + os.fsdecode(b"caf\xe9"))
