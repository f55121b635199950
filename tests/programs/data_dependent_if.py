"""A data-dependent `if` on a tensor in a compiled function: a graph break (torch.cond, or torch.where when both
branches are tensor expressions, is torch's fix)."""
import torch


@torch.compile
def k(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


for _ in range(3):
    k(torch.randn(1000))
