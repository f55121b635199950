"""What the values of a NumPy or torch variant are, as far as its breaks' rewrites need: the population (a matrix,
one row per individual), a column (one value per individual), a 0-d array (a reduction over everything: an ``if`` on
it is data-dependent), or a Python value (None: constants, shapes, what ``.item()`` gave)."""

from __future__ import annotations

import ast

from inspector.rewrite.dialect import NUMPY, REDUCTIONS

MATRIX, COLUMN, ZERO_D, ARRAY = "matrix", "column", "0-d", "array"  # ARRAY: an array of unknown shape
ELEMENTWISE = set(NUMPY) | set(NUMPY.values()) | {"clamp", "clip", "where", "abs", "neg", "square"}
CREATE = {"zeros", "ones", "empty", "full"}
SAME = {"copy", "clone", "double", "float", "half", "abs", "neg", "contiguous", "detach", "bool", "long", "int"}


class Shapes:
    """The shape class of each local, updated statement by statement (``assign``)."""

    def __init__(self, population: str) -> None:
        self.population = population
        self.names: dict[str, str] = {population: MATRIX}

    def of(self, node: ast.expr) -> str | None:
        method = getattr(self, "_" + type(node).__name__, None)
        found: str | None = method(node) if method else None
        return found

    def _Name(self, node: ast.Name) -> str | None:
        return self.names.get(node.id)

    def _BinOp(self, node: ast.BinOp) -> str | None:
        if isinstance(node.op, ast.MatMult):
            return MATRIX if self.of(node.left) == MATRIX else ARRAY
        return widest(self.of(node.left), self.of(node.right))

    def _UnaryOp(self, node: ast.UnaryOp) -> str | None:
        return self.of(node.operand)

    def _Compare(self, node: ast.Compare) -> str | None:
        return widest(*(self.of(n) for n in [node.left, *node.comparators]))

    def _BoolOp(self, node: ast.BoolOp) -> str | None:
        return widest(*(self.of(n) for n in node.values))

    def _IfExp(self, node: ast.IfExp) -> str | None:
        return widest(self.of(node.body), self.of(node.orelse))

    def _Attribute(self, node: ast.Attribute) -> str | None:
        return self.of(node.value) if node.attr in ("T", "real", "data", "values") else None

    def _Subscript(self, node: ast.Subscript) -> str | None:
        base = self.of(node.value)
        index = node.slice
        if base == MATRIX and isinstance(index, ast.Tuple) and len(index.elts) == 2 and isinstance(
                index.elts[0], ast.Slice) and index.elts[0].lower is None and index.elts[0].upper is None:
            second = index.elts[1]
            return MATRIX if isinstance(second, ast.Slice) or self.of(second) is not None else COLUMN
        return ARRAY if base else None

    def _Call(self, node: ast.Call) -> str | None:
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        receiver = self.of(func.value) if isinstance(func, ast.Attribute) else None
        axis = next((k.value for k in node.keywords if k.arg in ("axis", "dim")), None)
        if method == "item" or method in ("tolist", "numpy") or (isinstance(func, ast.Name) and method in (
                "float", "int", "len", "bool")):
            return None
        if method in CREATE and node.args and self.sized(node.args[0]):
            return COLUMN
        if method.endswith("_like") and node.args:
            return self.of(node.args[0])
        if receiver is not None and method in SAME:
            return receiver
        if method in REDUCTIONS or method in ("amax", "amin", "argmax", "argmin", "count_nonzero"):
            source = receiver if receiver is not None else (self.of(node.args[0]) if node.args else None)
            if source is None:
                return None
            if axis is None and isinstance(func, ast.Attribute) and receiver is not None and node.args:
                axis = node.args[0]
            if axis is None:
                return ZERO_D
            return COLUMN if source == MATRIX else ARRAY
        if method == "unbind":
            return COLUMN
        args = [self.of(a) for a in node.args] + ([receiver] if receiver else [])
        if method in ELEMENTWISE:
            return widest(*args)
        return ARRAY if any(args) else None

    def sized(self, node: ast.expr) -> bool:
        """``len(population)`` or ``population.shape[0]``: one per individual."""
        if isinstance(node, ast.Tuple) and node.elts:
            return len(node.elts) == 1 and self.sized(node.elts[0])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
            return self.of(node.args[0]) in (MATRIX, COLUMN)
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
            node.value.attr == "shape" and self.of(node.value.value) in (MATRIX, COLUMN) and \
            isinstance(node.slice, ast.Constant) and node.slice.value == 0

    def assign(self, statement: ast.stmt) -> None:
        """Learn the shapes ``statement`` binds."""
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                self.bind(target, statement.value)
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
            self.bind(statement.target, statement.value)

    def bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            shape = self.of(value)
            if shape:
                self.names[target.id] = shape
            else:
                self.names.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) else None
            each = None if values is not None else (COLUMN if self.of(value) == MATRIX or (
                isinstance(value, ast.Call) and self.of(value) == COLUMN) else self.of(value) and ARRAY)
            for i, element in enumerate(target.elts):
                if isinstance(element, ast.Name):
                    shape = self.of(values[i]) if values is not None else each
                    if shape:
                        self.names[element.id] = shape


def widest(*shapes: str | None) -> str | None:
    """The shape of an elementwise result."""
    for shape in (MATRIX, ARRAY, COLUMN, ZERO_D):
        if shape in shapes:
            return shape
    return None
