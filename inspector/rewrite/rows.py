"""A function over the population that loops over its rows (``for i in range(len(pop))``, ``for x in pop``, ``for
i, x in enumerate(pop)``), filling one value per row (``out[i] = ...``, ``out.append(...)``), or that returns a
comprehension over them (``np.array([... for x in pop])``), read as the per-individual function its loop body (or
the comprehension's value) is: ``per_row`` gives the program with that function in its place, for ``vectorize`` to
write over the whole population (its ``if`` on a row becoming ``np.where``), or None where the function is not
that loop. The rewrite is checked against the user's function like any other."""

from __future__ import annotations

import ast
import copy
from dataclasses import replace

from inspector.rewrite.program import Program
from inspector.rowloops import is_length, is_name
from inspector.rewrite.vectorize import PLURAL

MAKERS = {"zeros", "empty", "ones", "full"}  # np.<maker>(n) holds the values
ARRAYS = {"array", "asarray"}  # np.<array>(values) returned


def per_row(program: Program, name: str) -> Program | None:
    """``program`` with ``name`` (a function of the population alone) read as its loop's body on one row."""
    module = program.main
    definition = module.definition(name)
    if definition is None or len(definition.args.args) != 1 or definition.args.vararg or definition.args.kwonlyargs:
        return None
    pop = definition.args.args[0].arg
    body = definition.body[1:] if _docstring(definition.body[0]) else definition.body
    found = _comprehension(body, pop, definition) or _loop_body(body, pop, definition)
    if found is None:
        return None
    row, rewritten = found
    function = copy.deepcopy(definition)  # its name and place, the fields of this Python's ast
    function.args = ast.arguments(posonlyargs=[], args=[ast.copy_location(ast.arg(arg=row), definition.args.args[0])],
                                  kwonlyargs=[], kw_defaults=[], defaults=[])
    function.body, function.decorator_list, function.returns = rewritten, [], None
    ast.fix_missing_locations(function)
    return replace(program, main=replace(module, functions={**module.functions, definition.name: function}))


def _loop_body(body: list[ast.stmt], pop: str, definition: ast.FunctionDef) -> tuple[str, list[ast.stmt]] | None:
    """(the row's name, the loop's body on it) of ``out = np.zeros(n)``, a loop over the rows that sets or appends
    each row's value, ``return out``."""
    if len(body) < 3 or not isinstance(loop := body[-2], ast.For) or loop.orelse:
        return None
    sizes = {n for s in body[:-3] if (n := _size_alias(s, pop))}
    if any(not _size_alias(s, pop) for s in body[:-3]):
        return None
    out = _values(body[-3], pop, sizes)
    index, row = _loop(loop, pop, sizes)
    if out is None or not (index or row) or not _returned(body[-1], out):
        return None
    one = _one(pop, definition, row)
    rewritten = _Row(pop, index, one, out, row).body(loop.body)
    return None if rewritten is None else (one, rewritten)


def _comprehension(body: list[ast.stmt], pop: str, definition: ast.FunctionDef) -> tuple[str, list[ast.stmt]] | None:
    """(the row's name, ``return`` its value) of ``return np.array([value for row in pop])`` (or the list)."""
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    value = _unwrapped(body[0].value)
    if not (isinstance(value, ast.ListComp) and len(value.generators) == 1):
        return None
    loop = value.generators[0]
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name) or not is_name(loop.iter, pop):
        return None
    returned = ast.copy_location(ast.Return(value=value.elt), body[0])
    one = _one(pop, definition, loop.target.id)
    rewritten = _Row(pop, None, one, "", loop.target.id).body([returned])
    return None if rewritten is None else (one, rewritten)


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
        and isinstance(statement.value.value, str)


def _size_alias(statement: ast.stmt, pop: str) -> str | None:
    """The name of ``n = len(pop)`` (or ``pop.shape[0]``)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id if is_length(statement.value, pop, set()) else None
    return None


def _values(statement: ast.stmt, pop: str, sizes: set[str]) -> str | None:
    """The name of ``out = np.zeros(n)`` (a maker of n values, or of ``pop``'s length) or ``out = []``."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return None
    value = statement.value
    if isinstance(value, ast.List) and not value.elts:
        return statement.targets[0].id
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in MAKERS \
            and value.args and is_length(value.args[0], pop, sizes):
        return statement.targets[0].id
    return None


def _loop(loop: ast.For, pop: str, sizes: set[str]) -> tuple[str | None, str | None]:
    """(the index name, the row name) of ``for i in range(len(pop))``, ``for i, x in enumerate(pop)`` or ``for x in
    pop``; (None, None) for another loop."""
    target, over = loop.target, loop.iter
    if isinstance(target, ast.Name) and is_name(over, pop):
        return None, target.id
    if not (isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and not over.keywords):
        return None, None
    if over.func.id == "range" and len(over.args) == 1 and is_length(over.args[0], pop, sizes) \
            and isinstance(target, ast.Name):
        return target.id, None
    if over.func.id == "enumerate" and len(over.args) == 1 and is_name(over.args[0], pop) \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in target.elts):
        i, x = target.elts
        assert isinstance(i, ast.Name) and isinstance(x, ast.Name)
        return i.id, x.id
    return None, None


def _returned(statement: ast.stmt, out: str) -> bool:
    """``return out`` or ``return np.array(out)``."""
    if not isinstance(statement, ast.Return) or statement.value is None:
        return False
    return is_name(_unwrapped(statement.value), out)


def _unwrapped(value: ast.expr) -> ast.expr:
    """``values`` of ``np.array(values)`` (or ``np.asarray``), else ``value`` itself."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ARRAYS \
            and len(value.args) == 1 and not value.keywords:
        return value.args[0]
    return value


def _one(pop: str, definition: ast.FunctionDef, named: str | None) -> str:
    """The row's name: the one whose plural the vectorizer gives the population (``ind`` for ``pop``), so that the
    rewrite takes the population under the user's name (``row`` for another name); the loop's own where it is that."""
    wanted = next((one for one, many in PLURAL.items() if many == pop), "row")
    return wanted if wanted == named else _free(wanted, definition)


def _free(wanted: str, definition: ast.FunctionDef) -> str:
    """``wanted``, or ``wanted_`` ... where the function already uses the name."""
    used = {n.id for n in ast.walk(definition) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(definition)
                                                                             if isinstance(a, ast.arg)}
    while wanted in used:
        wanted += "_"
    return wanted


class _Row(ast.NodeTransformer):
    """The loop's body on one row: ``pop[i]`` and the loop's own name for the row (``named``) are the row, ``out[i] =
    v`` / ``out.append(v)`` (each last in its block) is ``return v``; None where ``pop``, ``i`` or ``out`` is used
    otherwise."""

    def __init__(self, pop: str, index: str | None, row: str, out: str, named: str | None = None) -> None:
        self.pop, self.index, self.row, self.out, self.named = pop, index, row, out, named
        self.bad = False

    def body(self, statements: list[ast.stmt]) -> list[ast.stmt] | None:
        new = [self.visit(copy.deepcopy(s)) for s in statements]
        return None if self.bad or not self._ends(new) else new

    def _ends(self, block: list[ast.stmt]) -> bool:
        """Whether every way through ``block`` ends in a return."""
        last = block[-1] if block else None
        if isinstance(last, ast.Return):
            return True
        return isinstance(last, ast.If) and bool(last.orelse) and self._ends(last.body) and self._ends(last.orelse)

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Subscript) and is_name(target.value, self.out) \
                and self.index is not None and is_name(target.slice, self.index):
            return ast.copy_location(ast.Return(value=self.visit(node.value)), node)
        self.generic_visit(node)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and is_name(call.func.value, self.out) and len(call.args) == 1 and not call.keywords:
            return ast.copy_location(ast.Return(value=self.visit(call.args[0])), node)
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if is_name(node.value, self.pop) and self.index is not None:
            index = node.slice
            if is_name(index, self.index):
                return ast.copy_location(ast.Name(id=self.row, ctx=ast.Load()), node)
            if isinstance(index, ast.Tuple) and index.elts and is_name(index.elts[0], self.index):
                rest = index.elts[1:]
                inner: ast.expr = rest[0] if len(rest) == 1 else ast.Tuple(elts=rest, ctx=ast.Load())
                return ast.copy_location(ast.Subscript(value=ast.Name(id=self.row, ctx=ast.Load()),
                                                       slice=self.visit(inner), ctx=node.ctx), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in (self.pop, self.out) or node.id == self.index:
            self.bad = True  # the population, the values or the index used another way
        if node.id == self.named:
            return ast.copy_location(ast.Name(id=self.row, ctx=node.ctx), node)
        return node

    def visit_Break(self, node: ast.Break) -> ast.stmt:
        self.bad = True
        return node

    def visit_Continue(self, node: ast.Continue) -> ast.stmt:
        self.bad = True
        return node

