"""A call counter in the fitness: torch recompiles on every call, until it gives up

Counting generations inside the fitness (a global dict incremented on each call) makes Dynamo guard on the
counter's value: each call fails the guard and compiles again. After torch._dynamo.config.recompile_limit (8)
recompiles, Dynamo stops compiling the function and runs it eagerly. The report says so beside the timing, whose
median mixes compiling, compiled and eager calls.
"""

POPULATION_SIZE = 20_000
CALLS = {"n": 0}


def population(n, rng):
    return rng.uniform(-5, 5, size=(n, 4))


def fitness_numpy(population):
    return (population**2).sum(axis=1)


def fitness_torch(population):  # inspector: limit-hit torch>=2.13
    CALLS["n"] += 1
    return (population**2).sum(dim=1)
