"""A compiled function on Dynamo's eager backend (no Inductor compile: a cheap program to run twice), called four
times at one size: one compile, then torch's cached code.

    python tests/programs/dynamo_only.py
"""

import torch


@torch.compile(backend="eager")
def f(x):
    return torch.sin(x) * 2 + 1


for _ in range(4):
    f(torch.randn(1000))
