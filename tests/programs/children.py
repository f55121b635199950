"""A program whose multiprocessing children compile (issue 30, "also seen"): one spawned by
torch.multiprocessing.spawn, which spawns a child of its own (a grandchild) working beside it, and one forked (which
compiles nothing of its own: inspector does not follow it either way). Each process but the program prints its name,
torch's own count of the graphs it compiled, and the sys.path it was given."""
import multiprocessing
import sys

import torch
import torch.multiprocessing
from torch._dynamo.utils import counters


@torch.compile
def step(x):
    return torch.sin(x) * 2 + 1


def work(rank, calls=3):
    grandchild = multiprocessing.get_context("spawn").Process(target=work, args=(1,)) if rank == 0 else None
    if grandchild:
        grandchild.start()
    for _ in range(calls):
        step(torch.randn(1000))
    if grandchild:
        grandchild.join()
    name = multiprocessing.current_process().name
    print(f"{name} graphs {counters['stats']['unique_graphs']} path {sys.path!r}", flush=True)


if __name__ == "__main__":
    torch.multiprocessing.spawn(work, nprocs=1)
    forked = multiprocessing.get_context("fork").Process(target=work, args=(2, 0))
    forked.start()
    forked.join()
    print("done")
