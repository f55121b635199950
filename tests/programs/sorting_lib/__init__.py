"""A small "library" that compiles its routines at import, as third-party libraries do (see
tests/programs/library_callee.py): a sort (a ``torch.while_loop`` of odd-even transposition passes) and a norm the
program never calls."""

import torch


def _unsorted(i, x):
    return i < x.shape[0]


def _exchange(i, x):
    """One odd-even transposition pass: each element at a position of the pass's parity with its right neighbour."""
    at = torch.arange(x.shape[0])
    left = (at % 2 == i % 2) & (at < x.shape[0] - 1)
    right = torch.roll(left, 1)
    ordered = torch.where(left, torch.minimum(x, torch.roll(x, -1)), x)
    return i + 1, torch.where(right, torch.maximum(x, torch.roll(x, 1)), ordered)


def bubble(x):
    if bool((x[1:] >= x[:-1]).all()):  # already sorted: a data-dependent branch, where torch breaks the graph
        return x
    return torch.while_loop(_unsorted, _exchange, (torch.tensor(0), x))[1]


sort = torch.compile(bubble)


def unused_norm(x):
    return x / x.norm()


norm = torch.compile(unused_norm)  # compiled at import, never called by the program
