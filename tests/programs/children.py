"""A program whose multiprocessing children compile (issue 30, "also seen"): two spawned by
torch.multiprocessing.spawn, one forked. Each child prints torch's own count of the graphs it compiled."""
import multiprocessing

import torch
import torch.multiprocessing
from torch._dynamo.utils import counters


@torch.compile
def step(x):
    return torch.sin(x) * 2 + 1


def work(rank):
    for _ in range(3):
        step(torch.randn(1000))
    print(f"rank {rank} graphs {counters['stats']['unique_graphs']}", flush=True)


if __name__ == "__main__":
    torch.multiprocessing.spawn(work, nprocs=2)
    forked = multiprocessing.get_context("fork").Process(target=work, args=(2,))
    forked.start()
    forked.join()
    print("done")
