"""A function compiled with ``dynamic=False`` called on ten sizes: torch recompiles it for sizes 2 to 8, then hits its
recompile limit (8) at size 9 and runs sizes 9 and 10 eagerly (issue 30, items 2 and 3).

    python samples/programs/recompile_limit.py

Every graph's kernel has the same name (``cpp_fused_mul_sum_0``) and a source of its own.
"""

import torch


@torch.compile(dynamic=False)
def g(x):
    return (x * 2).sum()


for n in range(1, 11):
    g(torch.randn(n))
