"""A sample with a syntax error"""


def population(n, rng)
    return rng.random((n, 4))
