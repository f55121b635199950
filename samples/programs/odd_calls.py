"""Compiled functions called as other people's programs call them, beyond a plain loop.

    python samples/programs/odd_calls.py [ROWS]

- ``normalise``: compiled, called once (a helper used at start-up);
- ``penalty``: compiled, never called itself: ``fitness`` calls it, so it is inlined into fitness's graph;
- ``fitness``: its first call made under ``torch.compiler.set_stance("force_eager")`` (torch >= 2.6), so it compiles
  at its second; later calls on a population of another rank made under ``eager_on_recompile``, which runs them
  eagerly instead of recompiling;
- ``objective(...)``: two closures of one decorator, ``per_row``: one code object, which torch compiles as one
  function (the second closure's first compile is a recompile of the first's).
"""

import contextlib
import sys

import torch


def stance(name):
    """torch.compiler.set_stance(name) where this torch has it (2.6 and later), else nothing."""
    set_stance = getattr(torch.compiler, "set_stance", None)
    return set_stance(name) if set_stance else contextlib.nullcontext()


@torch.compile
def normalise(pop):
    return (pop - pop.mean(0)) / pop.std(0)


@torch.compile
def penalty(x):
    return torch.clamp(x * x - 1.0, min=0.0).sum(-1)


@torch.compile
def fitness(pop):
    return torch.sin(pop).sum(-1) + 10.0 * penalty(pop)


def per_row(f):
    @torch.compile
    def objective(pop):
        return f(pop).sum(-1)
    return objective


squares = per_row(lambda x: x * x)
cubes = per_row(lambda x: x * x * x)

pop = normalise(torch.rand(int(sys.argv[1]) if len(sys.argv) > 1 else 5000, 4, dtype=torch.float64))
with stance("force_eager"):
    fitness(pop)
for _ in range(5):
    fitness(pop)
    squares(pop)
    cubes(pop)
with stance("eager_on_recompile"):
    for _ in range(3):
        fitness(pop[None])
print(f"best {float(fitness(pop).min()):.3f}")
