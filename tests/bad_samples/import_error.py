"""A sample that raises while it is imported"""


def population(n, rng):
    return rng.random((n, 4))


raise RuntimeError("cannot find the data file")
