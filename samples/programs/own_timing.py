"""A program that times its own compiled call, as benchmarks do: three warm-up calls, then the fourth is timed.

    python samples/programs/own_timing.py [ROWS]

Prints "fourth call: N ms". bench/own_timing.py runs it bare and under ``inspector run`` to see whether inspector
changes what the program measures.
"""

import sys
import time

import torch


@torch.compile
def fitness(pop):
    x, y = pop[:, 0], pop[:, 1]
    penalty = torch.clamp(x * x + y * y - 1.0, min=0.0)
    return torch.sin(3 * x) * torch.cos(2 * y) + 100.0 * penalty


pop = torch.rand(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000, 2, dtype=torch.float64)
for _ in range(3):
    fitness(pop)
start = time.perf_counter()
fitness(pop)
print(f"fourth call: {(time.perf_counter() - start) * 1e3:.4f} ms")
