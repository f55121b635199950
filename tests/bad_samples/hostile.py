"""<script>window.__pwned=1</script> "quoted" & 'single' <b>bold</b>

A hostile title, description and error message: the report must show them as text, never run them.
A description with </p><script>window.__pwned=3</script> in it & more.
"""

# Saved as latin-1 without a coding line; Python 3.11 imports a non-UTF-8 byte in a comment: café
# </script><script>window.__pwned=4</script>

import os

import numpy as np


def population(n, rng):
    return rng.random((n, 4))


def fitness_numpy(population):
    return population.sum(axis=1)


def fitness_numpy_hostile(population):
    raise ValueError("<img src=x onerror=window.__pwned=2> \"q\" 'q' " + os.fsdecode(b"caf\xe9"))
