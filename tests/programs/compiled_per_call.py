"""``torch.compile(f)(x)`` inside a loop (issue 30, item 1): a new wrapper per call, one code object. torch compiles
``f`` once ([0/0]); calls 2-4 pass its guards and run the cached compiled code (no new compile id).

    python tests/programs/compiled_per_call.py
"""

import torch


def f(x):
    return torch.sin(x) * 2 + 1


x = torch.randn(200_000)
for _ in range(4):
    torch.compile(f)(x)
