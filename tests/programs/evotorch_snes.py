"""EvoTorch's SNES on a compiled fitness, as its docs write one (pip install evotorch==0.6.1): EvoTorch gives the
fitness its population as a ReadOnlyTensor, a tensor subclass of its own, whose overrides Dynamo breaks in; torch
gives up on the function and runs every call eagerly. With ``x.as_subclass(torch.Tensor)`` where it is called, no
break is left and every call runs compiled code (EvoTorch 0.6.1, torch 2.13)."""

import torch
from evotorch import Problem
from evotorch.algorithms import SNES


@torch.compile
def sphere(x: torch.Tensor) -> torch.Tensor:
    return torch.sum(x ** 2, dim=-1) + torch.where(x[:, 0] > 1, 10.0, 0.0)


if __name__ == "__main__":
    torch.manual_seed(0)
    problem = Problem("min", sphere, solution_length=50, initial_bounds=(-1, 1), vectorized=True, seed=0)
    searcher = SNES(problem, stdev_init=1, popsize=1000)
    searcher.run(10)
    print(round(float(searcher.status["best_eval"]), 3))
