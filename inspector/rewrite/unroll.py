"""A Python loop of a NumPy or torch variant over genes (``for j in range(GENES)``) or constraints (``for a, b, c in
CONSTRAINTS``), which Dynamo unrolls into one graph, written as one array expression per name and one reduction per
accumulator: the loop's axis becomes the arrays' second axis."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from inspector.rewrite.dialect import MATH, Spelling, attr, call, name
from inspector.rewrite.emit import substitute
from inspector.rewrite.exprs import construct
from inspector.rewrite.model import Reason
from inspector.rewrite.shapes import COLUMN, ELEMENTWISE, MATRIX, Shapes
from inspector.rewrite.values import Decline

UPDATES = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "prod"}


@dataclass
class Axis:
    """The loop's axis: the statements that make its constant tables arrays, the range's bounds (for a loop over
    ``range``), the loop's names."""

    preamble: list[ast.stmt]
    targets: set[str]
    index: str | None = None  # the range's variable
    start: ast.expr | None = None
    stop: ast.expr | None = None


def unrolled(node: ast.For, rest: list[ast.stmt], shapes: Shapes, sp: Spelling, population: str) -> list[
        ast.stmt] | None:
    """The loop as arrays and reductions (None: not a loop over constants that computes with arrays)."""
    if node.orelse or not any(shapes.of(n) for s in node.body for n in ast.walk(s) if isinstance(n, ast.expr)):
        return None
    axis = over(node, sp, population, shapes)
    if axis is None:
        return None
    local: set[str] = set()
    out: list[ast.stmt] = list(axis.preamble)
    updates: list[ast.stmt] = []
    for statement in node.body:
        target, op, value = parts(statement)
        if target is None or value is None:
            raise Decline(statement, construct(statement), Reason.NOT_ELEMENTWISE, "in a loop Dynamo unrolls")
        written = widened(value, axis, local, shapes, sp, population)
        if op is None:
            out.append(ast.Assign([ast.Name(target, ast.Store())], written, lineno=statement.lineno))
            local.add(target)
            continue
        if not any(isinstance(n, ast.Name) and n.id in local | axis.targets for n in ast.walk(value)):
            raise Decline(statement, f"`{target}` in the loop", Reason.RECURRENCE, "the same every iteration")
        reduced = sp.reduce(UPDATES[type(op)], written, 1)
        updates.append(ast.AugAssign(ast.Name(target, ast.Store()), op, reduced, lineno=statement.lineno))
    later = {n.id for s in rest for n in ast.walk(s) if isinstance(n, ast.Name)}
    if (local | axis.targets) & later:
        raise Decline(node, construct(node), Reason.NOT_GENE_LOOP, f"`{sorted((local | axis.targets) & later)[0]}`"
                                                                    " is read after it")
    return out + updates


def parts(statement: ast.stmt) -> tuple[str | None, ast.operator | None, ast.expr | None]:
    """(name, update op or None for a plain assignment, value) of ``x = e``, ``acc += e``, ``acc = acc + e``."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and type(
            statement.op) in UPDATES:
        return statement.target.id, statement.op, statement.value
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0],
                                                                                         ast.Name):
        target, value = statement.targets[0].id, statement.value
        if isinstance(value, ast.BinOp) and type(value.op) in UPDATES and isinstance(value.left, ast.Name) and \
                value.left.id == target:
            return target, value.op, value.right
        if any(isinstance(n, ast.Name) and n.id == target for n in ast.walk(value)):
            return None, None, None
        return target, None, value
    return None, None, None


def over(node: ast.For, sp: Spelling, population: str, shapes: Shapes) -> Axis | None:
    """The axis of ``for j in range(...)`` or ``for a, b in TABLE`` (a constant), else None."""
    it, target = node.iter, node.target
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and isinstance(
            target, ast.Name) and 1 <= len(it.args) <= 2 and not any(shapes.of(a) for a in it.args):
        start = it.args[0] if len(it.args) == 2 else None
        return Axis([], {target.id}, target.id, start, it.args[-1])
    if not isinstance(it, ast.Name) or shapes.of(it) is not None:
        return None
    names = [target.id] if isinstance(target, ast.Name) else [
        e.id for e in target.elts if isinstance(e, ast.Name)] if isinstance(target, ast.Tuple) else []
    if not names or (isinstance(target, ast.Tuple) and len(names) != len(target.elts)):
        raise Decline(target, "unpacking in a loop Dynamo unrolls", Reason.NOT_GENE_LOOP)
    indexes = {n.slice.elts[1].id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Subscript)
               and isinstance(n.slice, ast.Tuple) and len(n.slice.elts) == 2 and isinstance(n.slice.elts[1], ast.Name)}
    table: ast.expr = it if isinstance(target, ast.Name) else call(name("zip"), ast.Starred(it, ast.Load()))
    store: ast.expr = ast.Name(names[0], ast.Store()) if isinstance(target, ast.Name) else ast.Tuple(
        [ast.Name(n, ast.Store()) for n in names], ast.Store())
    preamble: list[ast.stmt] = [ast.Assign([store], table, lineno=0)]
    placed = {"dtype": attr(population, "dtype")} | ({"device": attr(population, "device")} if sp.torch else {})
    for n in names:
        converted = sp.fn("array" if not sp.torch else "tensor", name(n), **({} if n in indexes else placed))
        preamble.append(ast.Assign([ast.Name(n, ast.Store())], converted, lineno=0))
    return Axis(preamble, set(names))


def widened(value: ast.expr, axis: Axis, local: set[str], shapes: Shapes, sp: Spelling, population: str) -> ast.expr:
    """``value`` for every iteration at once: the range's column as a run of columns, the range's variable as an
    arange, a per-individual array of the loop's outside as a column (``x[:, None]``)."""
    for n in ast.walk(value):
        elementwise(n, shapes, axis, local)

    def widen(n: ast.AST) -> ast.AST | None:
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Tuple) and len(n.slice.elts) == 2 and \
                isinstance(n.slice.elts[1], ast.Name) and n.slice.elts[1].id == axis.index:
            run = ast.Slice(axis.start, axis.stop)
            return ast.Subscript(n.value, ast.Tuple([n.slice.elts[0], run], ast.Load()), ast.Load())
        if isinstance(n, ast.Name) and n.id == axis.index:
            assert axis.stop is not None
            return sp.arange(axis.start or ast.Constant(0), axis.stop)
        if isinstance(n, ast.Name) and shapes.names.get(n.id) == COLUMN and n.id not in local | axis.targets:
            return ast.Subscript(n, ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()), ast.Load())
        return None
    found = substitute(value, widen)
    assert isinstance(found, ast.expr)
    return found


def elementwise(n: ast.AST, shapes: Shapes, axis: Axis, local: set[str]) -> None:
    """Decline what is not elementwise over the population (a reduction, a call it does not know, an index other
    than a column of the population)."""
    if isinstance(n, ast.Call):
        func = n.func
        known = isinstance(func, ast.Attribute) and (func.attr in ELEMENTWISE or func.attr in MATH) or (
            isinstance(func, ast.Name) and func.id in ("abs",))
        if not known:
            raise Decline(n, "call in a loop Dynamo unrolls", Reason.NOT_ELEMENTWISE)
    elif isinstance(n, ast.Subscript):
        ok = isinstance(n.slice, ast.Tuple) and len(n.slice.elts) == 2 and shapes.of(n.value) == MATRIX
        if not ok:
            raise Decline(n, "index in a loop Dynamo unrolls", Reason.NOT_ELEMENTWISE)
    elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
        raise Decline(n, "`@` in a loop Dynamo unrolls", Reason.NOT_ELEMENTWISE)
