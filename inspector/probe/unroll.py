"""Whether torch.compile would unroll a function's Python loop over the population's rows (``for i in
range(len(pop))``, ``for x in pop``, a comprehension over them, with no graph break inside): Dynamo then writes one
copy of the loop's body per row, and on a population of thousands its compile takes minutes and gigabytes (a
one-line loop over 400 rows: 97 s; a comprehension over 20,000: 10 minutes and 7.7 GB before it was stopped). A
function whose source loops over its first argument is traced on UNROLL_ROWS rows and on twice as many, with a
backend that only counts the graphs' nodes; where they grow with the rows it is not compiled, with why."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Callable, Optional

from inspector.rowloops import is_length, is_name

UNROLL_ROWS = 4  # rows a function is traced on to see whether Dynamo unrolls a loop over them


def unrolls(fn: Callable[..., Any], rows_of: Callable[[int], Any], rows: int, extra: tuple[Any, ...] = ()
            ) -> Optional[str]:
    """Why ``fn`` is not compiled on ``rows`` rows (``rows_of(n)``: its first argument of n rows, ``extra`` the
    rest): its graphs grow with the rows; None where its source has no loop over its first argument, where they do
    not grow (a loop with a break in it runs eagerly), or where tracing raised (the compile says what)."""
    if rows <= 2 * UNROLL_ROWS or not loops_over_rows(fn):
        return None
    few, more = (_traced(fn, rows_of(n), extra) for n in (UNROLL_ROWS, 2 * UNROLL_ROWS))
    if few is None or more is None or more <= few:
        return None
    return (f"not compiled: torch.compile unrolls its Python loop over the rows, one copy of its body per row (its "
            f"graphs held {few} nodes on {UNROLL_ROWS} rows, {more} on {2 * UNROLL_ROWS}); not tried on {rows:,} rows")


def loops_over_rows(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s source iterates over its first argument: ``for``/a comprehension over it, ``enumerate`` of
    it, or ``range`` of its length (``len(x)``, ``x.shape[0]``, or a name bound to one of them)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or not definition.args.args:
        return False
    first = definition.args.args[0].arg
    sizes = {t.id for node in ast.walk(definition)
             if isinstance(node, ast.Assign) and is_length(node.value, first, set())
             for t in node.targets if isinstance(t, ast.Name)}
    iters = [n.iter for n in ast.walk(definition) if isinstance(n, (ast.For, ast.comprehension))]
    return any(_over(it, first, sizes) for it in iters)


def _over(node: ast.expr, first: str, sizes: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id == first
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
        return False
    if node.func.id == "enumerate":
        return is_name(node.args[0], first)
    return node.func.id == "range" and any(is_length(a, first, sizes) for a in node.args)


def _traced(fn: Callable[..., Any], first: Any, extra: tuple[Any, ...]) -> Optional[int]:
    """The nodes of the graphs Dynamo makes of ``fn`` on ``first`` (a fresh trace, nothing compiled: the graphs run
    as they are); None where the call raised."""
    import torch
    nodes = [0]

    def counted(gm: Any, _: Any) -> Any:
        nodes[0] += len(gm.graph.nodes)
        return gm.forward
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend=counted)(first, *extra)
    except Exception:
        return None
    finally:
        torch._dynamo.reset()
    return nodes[0]
