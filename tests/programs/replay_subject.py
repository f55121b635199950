"""A program for the replay's test: a function that prints and draws random numbers (the replay must print
nothing and leave the random state as the program left it: the draws at exit match a bare run's), and one that
changes its input in place (not measured); one called twice, as a benchmark's warm-up and timed call (its second
call is inspector's trace: the replay runs on that call's copies)."""

import atexit
import random

import numpy as np
import torch


@torch.compile
def noisy(x):
    print("noisy ran")
    return torch.sin(x) * 2 + torch.rand_like(x)


@torch.compile
def doubled_in_place(x):
    x.mul_(2)
    return x


@torch.compile
def twice(x):
    return (x * x).sum()


def at_exit():
    print(f"draws at exit: {torch.rand(1).item():.6f} {np.random.rand():.6f} {random.random():.6f}")


atexit.register(at_exit)
torch.manual_seed(0)
np.random.seed(0)
random.seed(0)
x = torch.randn(1000)
for _ in range(6):
    noisy(x)
    doubled_in_place(torch.ones(1000))
for _ in range(2):
    twice(x)
print(f"draws in the program: {torch.rand(1).item():.6f} {np.random.rand():.6f}")
