"""A ``torch.while_loop`` (issue 30, item 3): ``call()`` runs the loop's condition and body through the subgraph
functions ``while_loop_cond_graph_0`` and ``while_loop_body_graph_0``.

    python tests/programs/while_loop_doubled.py
"""

import torch


def cond(i, x):
    return i < 3


def body(i, x):
    return i + 1, x * 2


@torch.compile
def doubled(x):
    return torch.while_loop(cond, body, (torch.tensor(0), x))[1]


for _ in range(3):
    doubled(torch.randn(100))
