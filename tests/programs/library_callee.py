"""A compiled function that calls a library's own compiled sort (issue 30, item 4): torch traces the sort as a frame
of its own when ``ranked`` calls it, and recompiles it for another size; ``ranked``'s later calls run cached code.

    python tests/programs/library_callee.py
"""

import torch
from sorting_lib import sort


@torch.compile
def ranked(x):
    y = sort(x * 2)
    return y[: y.shape[0] // 2].sum()


for n in (16, 16, 16, 24, 24):
    ranked(torch.randn(n))
