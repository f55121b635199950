"""A compiled method whose population is on ``self`` (it takes no array): its kernels load the population's columns
strided, but no argument of it could be passed column-major, so inspector gives no layout advice."""
import torch


class Population:
    def __init__(self, n):
        self.pop = torch.rand(n, 10) * 10 - 5

    @torch.compile
    def fitness(self):
        pop = self.pop
        return (pop[:, 0] - 1) ** 2 + (pop[:, 1] + 2) ** 2 + pop[:, 2] * pop[:, 3]


population = Population(20_000)
for _ in range(4):
    population.fitness()
