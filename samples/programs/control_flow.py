"""Higher-order ops Inductor lowers to subgraph functions of the output code (issue 30, item 3). A torch without
``torch.while_loop`` (2.1) exits saying so.

    python samples/programs/control_flow.py

- ``doubled``: a ``torch.while_loop``: ``call()`` runs ``while_loop_cond_graph_0`` once, then
  ``while_loop_body_graph_0`` and the condition again once per iteration (3 here: the data decides, not the code);
- ``branch``: a ``torch.cond`` on the sign of the sum: ``true_graph_0`` or ``false_graph_0``, whichever the data picks;
- ``stacked``: a ``torch.compiler.nested_compile_region`` called twice: one subgraph function
  (``repeated_subgraph0``), called twice, its kernel launched once per call of it.
"""

import sys

import torch

if not hasattr(torch, "while_loop"):
    sys.exit(f"torch {torch.__version__} has no torch.while_loop")


def cond(i, x):
    return i < 3


def body(i, x):
    return i + 1, x * 2


@torch.compile
def doubled(x):
    return torch.while_loop(cond, body, (torch.tensor(0), x))[1]


def positive(x):
    return (x * 2).sin()


def negative(x):
    return (x - 1).cos()


@torch.compile
def branch(x):
    return torch.cond(x.sum() > 0, positive, negative, (x,))


@torch.compiler.nested_compile_region
def layer(x):
    return torch.sin(x) * 2


@torch.compile
def stacked(x):
    return layer(layer(x) + 1)


for _ in range(3):
    doubled(torch.randn(100))
    branch(torch.randn(100))
    stacked(torch.randn(100))
