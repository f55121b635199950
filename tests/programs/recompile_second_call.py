"""A compiled function whose second call recompiles (a new size): the trace pass must not trace that call."""
import torch


@torch.compile(dynamic=False)
def scaled(x):
    return torch.sin(x) * 2 + torch.cos(x)


for n in (1000, 2000, 2000, 2000, 2000):
    scaled(torch.randn(n))
print("done")
