"""How code names the population's rows, read with ``ast`` alone: a name, the population's length (``len(pop)``,
``pop.shape[0]``, or a name bound to one of them). Shared by the rewriter's reading of a loop over the rows
(``inspector.rewrite.rows``) and the probe's check that torch.compile would unroll one (``inspector.probe.unroll``),
which imports it at no cost."""

from __future__ import annotations

import ast


def is_name(node: ast.expr, name: str) -> bool:
    """Whether ``node`` is the name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def is_length(node: ast.expr, pop: str, sizes: set[str]) -> bool:
    """Whether ``node`` is ``len(pop)``, ``pop.shape[0]`` or one of the names ``sizes`` (bound to one of them)."""
    if isinstance(node, ast.Name):
        return node.id in sizes
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        return is_name(node.args[0], pop)
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and is_name(node.value.value, pop) and isinstance(node.slice, ast.Constant) and node.slice.value == 0
