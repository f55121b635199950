"""A compiled function called with a Python float that changes each call: torch guards on its value and
recompiles (torch's recompilation page: pass the number as a tensor)."""
import torch


@torch.compile
def h(x, c):
    return x * c + 1


for c in [0.5, 1.5, 2.5, 3.5]:
    h(torch.randn(1000), c)
