"""A DEAP program as its documentation writes one (creator, toolbox, algorithms.eaSimple): a real library calls
the fitness through toolbox.map, lazily, setting each fitness between two calls."""

import random
from deap import base, creator, tools, algorithms

creator.create("FitnessMax", base.Fitness, weights=(1.0,))
creator.create("Individual", list, fitness=creator.FitnessMax)

toolbox = base.Toolbox()
toolbox.register("attr_float", random.random)
toolbox.register("individual", tools.initRepeat, creator.Individual, toolbox.attr_float, 100)
toolbox.register("population", tools.initRepeat, list, toolbox.individual)


def evalSphere(individual):
    total = 0.0
    for x in individual:
        total += (x - 0.5) ** 2
    if total > 10:
        total = total * 2
    return (total,)


toolbox.register("evaluate", evalSphere)
toolbox.register("mate", tools.cxTwoPoint)
toolbox.register("mutate", tools.mutFlipBit, indpb=0.05)
toolbox.register("select", tools.selTournament, tournsize=3)

if __name__ == "__main__":
    random.seed(64)
    pop = toolbox.population(n=3000)
    pop, log = algorithms.eaSimple(pop, toolbox, cxpb=0.5, mutpb=0.2, ngen=15, verbose=False)
    print(max(ind.fitness.values[0] for ind in pop))
