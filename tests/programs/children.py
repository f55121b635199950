"""A program whose multiprocessing children compile (issue 30, "also seen"): two spawned by
torch.multiprocessing.spawn, one forked (which compiles nothing of its own: inspector does not follow it either way).
Each child prints its name, torch's own count of the graphs it compiled, and the sys.path it was given."""
import multiprocessing
import sys

import torch
import torch.multiprocessing
from torch._dynamo.utils import counters


@torch.compile
def step(x):
    return torch.sin(x) * 2 + 1


def work(rank, calls=3):
    for _ in range(calls):
        step(torch.randn(1000))
    name = multiprocessing.current_process().name
    print(f"{name} graphs {counters['stats']['unique_graphs']} path {sys.path!r}", flush=True)


if __name__ == "__main__":
    torch.multiprocessing.spawn(work, nprocs=2)
    forked = multiprocessing.get_context("fork").Process(target=work, args=(2, 0))
    forked.start()
    forked.join()
    print("done")
