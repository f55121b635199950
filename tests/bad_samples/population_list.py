"""population() returns a list"""


def population(n, rng):
    return [[1, 2, 3]] * n


def fitness_python(individual):
    return sum(individual)
