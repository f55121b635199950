"""A sample without population()"""


def fitness_python(individual):
    return sum(individual)
