"""A helper called twice with different shapes inside a compiled function (issue 40, item 4): torch recompiles the
helper's frames while the first call runs; the later calls run what it cached (no recompile on every call).

    python tests/programs/nested_recompile.py
"""

import torch


def halved(x):
    if x.sum() > 0:  # a break: the helper is a frame of its own, compiled per size
        return x / 2
    return x


@torch.compile
def pair(a, b):
    return halved(a).sum() + halved(b).sum()


for _ in range(3):
    pair(torch.ones(4), torch.ones(7))
