"""Expressions of a per-individual function, written over the population: names, constants, operators,
comparisons, ``and``/``or``/``not``, conditional expressions and indexing the individual (calls, reductions and
comprehensions are in ``inspector.rewrite.calls``)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Protocol

from inspector.rewrite import ranges
from inspector.rewrite.dialect import CONSTANTS, Spelling, name, number
from inspector.rewrite.model import Note, Reason, Row, Topic
from inspector.rewrite.program import Module, Program, Resolved, literal
from inspector.rewrite.values import (CELLS, ITEMS, SCALAR, WHOLE, Binding, Bound, Decline, Genes, Kind,
                                      Value, join, varies)

FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE,
                                                    ast.GtE: ast.Lt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
ORDERED = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
LIBRARIES = {"math", "numpy", "torch"}
NUMBERS = {"float", "int", "len", "round", "abs", "sum", "min", "max", "pow"}  # builtins that make a number


class Helpers(Protocol):
    """Translates a helper the function calls, for the kinds of its arguments: (its new name, its result's kind)."""

    def translate(self, module: Module, function: ast.FunctionDef, kinds: tuple[Kind, ...],
                  call: ast.Call) -> tuple[str, Kind]: ...


@dataclass
class Frame:
    """What translating one function needs: where it is, the spelling, how the original takes its individual, the
    locals' bindings; what it collects: notes, statements to place before the current one (``preamble``), imports
    of names from the program's other modules."""

    program: Program
    module: Module
    function: str
    spelling: Spelling
    row: Row
    helpers: Helpers
    env: dict[str, Binding] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    preamble: list[ast.stmt] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)
    bound: dict[str, int] = field(default_factory=dict)  # how many times the user's function binds each name
    tables: dict[str, ast.Assign] = field(default_factory=dict)  # a module's table -> its array, made at the start


class Expressions:
    """Translates one expression at a time (``expr``); raises Decline for a construct outside the subset."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.sp: Spelling = frame.spelling

    def expr(self, node: ast.expr) -> Value:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Decline(node, construct(node), Reason.VALUE)
        value: Value = method(node)
        return value

    def note(self, topic: Topic, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        found = Note(topic, self.frame.module.line(line), file=self.frame.module.path, line=line)
        if found not in self.frame.notes:
            self.frame.notes.append(found)

    # names and constants

    def _Constant(self, node: ast.Constant) -> Value:
        if isinstance(node.value, bool):
            return Value(node, Kind(boolean=True))
        if isinstance(node.value, (int, float)):
            return Value(node, SCALAR)
        raise Decline(node, construct(node), Reason.VALUE)

    def _Name(self, node: ast.Name) -> Value:
        bound = self.frame.env.get(node.id)
        if bound is not None:
            keep = isinstance(bound.node, ast.Name) and bound.node.id == node.id
            return Value(node if keep else bound.node, bound.kind)
        found = self.resolve(node.id)
        if found.what == "constant" or (found.what == "import" and "." in found.target):
            self.need(found, node.id)
            return Value(node, SCALAR)
        raise Decline(node, f"name `{node.id}`", Reason.UNKNOWN_NAME if found.what == "unknown" else Reason.VALUE)

    def resolve(self, identifier: str) -> Resolved:
        return self.frame.program.resolve(self.frame.module, identifier)

    def need(self, found: Resolved, identifier: str) -> None:
        """Import ``identifier`` into the rewrite where it names a constant of another of the program's modules."""
        if found.module is not None and found.module.name and found.module is not self.frame.program.main:
            self.frame.imports.add(f"from {found.module.name} import {identifier}")

    def _Attribute(self, node: ast.Attribute) -> Value:
        if isinstance(node.value, ast.Name) and node.value.id not in self.frame.env:
            found = self.resolve(node.value.id)
            if found.what == "import" and found.target in LIBRARIES and node.attr in CONSTANTS:
                mine = {"numpy": not self.sp.torch, "torch": self.sp.torch, "math": self.sp.torch}
                return Value(node if mine[found.target] else self.sp.constant(node.attr), SCALAR)
            if found.what == "constant":
                self.need(found, node.value.id)
                return Value(node, SCALAR)
            if found.what == "import":
                raise Decline(node, f"`{self.frame.module.segment(node)}`", Reason.VALUE)
        value = self.expr(node.value)
        if value.kind == SCALAR:
            return Value(node, SCALAR)
        if value.kind.sequence == "array" and value.kind.span and node.attr == "size":
            return Value(self.length(value.kind.span), SCALAR)
        raise Decline(node, f"attribute `.{node.attr}`", Reason.VALUE)

    # operators

    def _BinOp(self, node: ast.BinOp) -> Value:
        if isinstance(node.op, (ast.MatMult, ast.LShift, ast.RShift)):
            raise Decline(node, construct(node), Reason.OPERATOR)
        repeated = self.repetition(node)
        if repeated is not None:
            return repeated
        left, right = self.elementwise(self.expr(node.left), node), self.elementwise(self.expr(node.right), node)
        kind = join(left.kind, right.kind)
        if isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            if not (left.kind.boolean and right.kind.boolean):
                raise Decline(node, construct(node), Reason.OPERATOR)
            kind = replace(kind, boolean=True)
        a, b = self.broadcast([left, right], kind)
        same = a is node.left and b is node.right
        warns = left.warns or right.warns or self.risky(node, kind, left, right)
        return Value(node if same else ast.BinOp(a, node.op, b), kind, warns)

    def repetition(self, node: ast.BinOp) -> Value | None:
        """``[0] * K`` (or ``K * [0]``), K a constant: a list of that many values (None where it is not one)."""
        if not isinstance(node.op, ast.Mult):
            return None
        for shown, times in ((node.left, node.right), (node.right, node.left)):
            count = self.integer(times, node)
            if isinstance(shown, ast.List) and count is not None and count >= 0:
                value = self.expr(shown)
                written = node if value.node is shown else ast.BinOp(value.node, ast.Mult(), times)
                return Value(written, replace(value.kind, items=len(shown.elts) * count), value.warns)
        return None

    def risky(self, node: ast.BinOp, kind: Kind, left: Value, right: Value) -> bool:
        """Note where Python could raise or give a complex number and arrays do not (``ranges``: where the operands'
        form does not rule it out); True when it may warn."""
        if not kind.population:
            return False
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and not ranges.interval(right.node).nonzero or \
                isinstance(node.op, ast.Pow) and ranges.may_raise_power(left.node, right.node):
            self.note(Topic.RAISES, node)
            return True
        if isinstance(node.op, ast.Pow) and ranges.complex_power(left.node, right.node):
            self.note(Topic.COMPLEX_POWER, node)
            return True
        return False

    def elementwise(self, value: Value, node: ast.AST) -> Value:
        """A run of genes used in arithmetic: elementwise for an ndarray row, declined for a list."""
        if value.kind.items is not None or value.kind.sequence == "list":
            raise Decline(node, construct(node), Reason.SEQUENCE)
        if value.kind.sequence == "array":
            return replace(value, kind=replace(value.kind, sequence=None))
        return value

    def broadcast(self, values: list[Value], kind: Kind) -> list[ast.expr]:
        """The values' nodes, a per-individual value given a gene axis (``c[:, None]``) where others have one; two
        runs of genes of different lengths decline."""
        spans = {v.kind.span.length for v in values if v.kind.genes and v.kind.span}
        if len(spans) > 1:
            raise Decline(values[0].node, "genes of runs of different lengths", Reason.INDEX)
        if not kind.genes:
            return [v.node for v in values]
        return [ast.Subscript(v.node, ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()), ast.Load())
                if v.kind.population and not v.kind.genes else
                self.sp.tensor(v.node) if self.sp.torch and self.vector(v) else v.node for v in values]

    def vector(self, value: Value) -> bool:
        """Whether a value the same for every individual is a vector over the genes, not a number: a name of the
        program's bound to a list, a tuple or a call (``np.array(...)``, ``rng.uniform(...)``; not Python's or math's
        numbers); torch takes it as a tensor on the population's device."""
        node = value.node
        if value.kind.population or value.kind.genes:
            return False
        found = self.resolve(node.id) if isinstance(node, ast.Name) and node.id not in self.frame.env else None
        owner = found.module if found and found.what == "constant" else None
        bound = owner.constants.get(found.target) if owner and found else None
        made = getattr(bound, "value", None)
        if isinstance(made, ast.Call):  # an array, not a number made by Python or math
            func = made.func
            return not (isinstance(func, ast.Name) and func.id in NUMBERS or isinstance(func, ast.Attribute)
                        and isinstance(func.value, ast.Name) and func.value.id == "math")
        return isinstance(made, (ast.List, ast.Tuple, ast.ListComp))

    def _UnaryOp(self, node: ast.UnaryOp) -> Value:
        value = self.expr(node.operand)
        varies = value.kind.population or value.kind.genes
        if isinstance(node.op, ast.Not):
            if not varies:
                return Value(node if value.node is node.operand else ast.UnaryOp(node.op, value.node), value.kind)
            return Value(self.negate(self.condition(value), node), replace(value.kind, boolean=True), value.warns)
        value = self.elementwise(value, node)
        if varies and (value.kind.boolean or isinstance(node.op, ast.Invert)):
            raise Decline(node, construct(node), Reason.OPERATOR)
        same = value.node is node.operand
        return Value(node if same else ast.UnaryOp(node.op, value.node), replace(value.kind, boolean=False),
                     value.warns)

    def condition(self, value: Value) -> ast.expr:
        """A value as a truth value: itself when it is one, else ``value != 0`` (Python's truth of a number)."""
        if value.kind.boolean or not (value.kind.population or value.kind.genes):
            return value.node
        return self.sp.truth(self.elementwise(value, value.node).node)

    def negate(self, test: ast.expr, node: ast.AST) -> ast.expr:
        """``not test`` for arrays: a comparison flipped (noted: with NaN, ``not (a < b)`` is not ``a >= b``), a
        negation undone, else ``~test``."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in FLIPPED:
            if isinstance(test.ops[0], ORDERED):
                self.note(Topic.NAN_COMPARISON, node)
            return ast.Compare(test.left, [FLIPPED[type(test.ops[0])]()], test.comparators)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Invert):
            return test.operand
        return ast.UnaryOp(ast.Invert(), test)

    def _BoolOp(self, node: ast.BoolOp) -> Value:
        values = [self.expr(v) for v in node.values]
        kind = join(*(v.kind for v in values))
        warns = any(v.warns for v in values)
        if not (kind.population or kind.genes):
            same = all(v.node is o for v, o in zip(values, node.values))
            return Value(node if same else ast.BoolOp(node.op, [v.node for v in values]), values[-1].kind)
        if all(v.kind.boolean for v in values):
            return self.logical(node.op, values, node)
        self.note(Topic.OPERANDS, node)
        result = values[-1]
        for value in reversed(values[:-1]):  # a and b: b where a is true, else a; a or b: a where a is true, else b
            yes, no = (result, value) if isinstance(node.op, ast.And) else (value, result)
            result = self.where(self.condition(value), value.kind, yes, no, node)
        return replace(result, warns=warns)

    def logical(self, op: ast.boolop, values: list[Value], node: ast.AST) -> Value:
        """Truth values combined with ``&`` (and) or ``|`` (or)."""
        kind = replace(join(*(v.kind for v in values)), boolean=True)
        symbol = ast.BitAnd if isinstance(op, ast.And) else ast.BitOr
        leaves: list[ast.expr] = []
        for n in self.broadcast(values, kind):
            leaves += chain(n, symbol)
        result = leaves[0]
        for n in leaves[1:]:
            result = ast.BinOp(result, symbol(), n)
        return Value(result, kind, any(v.warns for v in values))

    def _Compare(self, node: ast.Compare) -> Value:
        if any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops):
            raise Decline(node, construct(node), Reason.OPERATOR)
        operands = [self.expr(o) for o in [node.left, *node.comparators]]
        for o in operands:
            self.elementwise(o, node)
        kind = replace(join(*(o.kind for o in operands)), boolean=True)
        if not (kind.population or kind.genes):
            same = all(v.node is o for v, o in zip(operands, [node.left, *node.comparators]))
            return Value(node if same else ast.Compare(operands[0].node, node.ops, [o.node for o in operands[1:]]),
                         kind)
        pairs, same = [], True
        for op, a, b in zip(node.ops, operands, operands[1:]):
            left, right = self.broadcast([a, b], join(a.kind, b.kind))
            same = same and left is node.left and right is node.comparators[0]
            pairs.append(Value(ast.Compare(left, [op], [right]), replace(join(a.kind, b.kind), boolean=True),
                               a.warns or b.warns))
        if len(pairs) == 1:
            return replace(pairs[0], node=node) if same else pairs[0]
        return self.logical(ast.And(), pairs, node)

    def _IfExp(self, node: ast.IfExp) -> Value:
        test, yes, no = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        if not (test.kind.population or test.kind.genes):
            same = test.node is node.test and yes.node is node.body and no.node is node.orelse
            return Value(node if same else ast.IfExp(test.node, yes.node, no.node), join(yes.kind, no.kind),
                         yes.warns or no.warns)
        return self.where(self.condition(test), test.kind, yes, no, node)

    def where(self, test: ast.expr, test_kind: Kind, yes: Value, no: Value, node: ast.AST) -> Value:
        """``yes`` where ``test`` holds, else ``no`` (both computed: noted where one may warn)."""
        if yes.kind.items is not None or no.kind.items is not None:
            raise Decline(node, "choice between tuples", Reason.VALUE, "write one conditional per objective")
        if yes.warns or no.warns:
            self.note(Topic.BOTH_BRANCHES, node)
        kind = replace(join(test_kind, yes.kind, no.kind), boolean=yes.kind.boolean and no.kind.boolean)
        if self.sp.torch and not kind.boolean and not varies(yes) and not varies(no):
            if self.sp.like is None:  # torch.where of two Python numbers: torch's default dtype
                self.note(Topic.DEFAULT_DTYPE, node)
            else:
                yes = replace(yes, node=self.sp.tensor(yes.node))
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Invert):
            test, yes, no = test.operand, no, yes
        t, a, b = self.broadcast([Value(test, test_kind), yes, no], kind)
        return Value(self.sp.where(t, a, b), kind, yes.warns or no.warns)

    # the individual and its genes

    def _Subscript(self, node: ast.Subscript) -> Value:
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return self.shape(node)
        value = self.expr(node.value)
        if value.kind.sequence and value.kind.span and isinstance(value.node, (ast.Name, ast.Subscript)):
            return self.genes(value.kind.span, node.slice, node, value.kind.sequence)
        index = self.expr(node.slice) if not isinstance(node.slice, ast.Slice) else None
        if value.kind == SCALAR and (index is None or index.kind == SCALAR):
            return Value(node, SCALAR)
        if value.kind.items is not None and index is not None and index.kind == SCALAR:
            same = value.node is node.value and index.node is node.slice
            return Value(node if same else ast.Subscript(value.node, index.node, ast.Load()), value.kind.element())
        entries = self.table_at(node)
        if entries is not None:
            return entries
        gathered = self.gathered(node)
        if gathered is not None:
            return gathered
        raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX)

    def table_at(self, node: ast.Subscript) -> Value | None:
        """``W[i]``, ``ITEMS[i + k]``: a module's constant table (of numbers, or of tuples of numbers) indexed by a
        loop over the genes: its entries for that run, one per gene (a tuple's items as columns: ``w, v =
        ITEMS[i]``, ``ITEMS[i][0]``); None where it is not one."""
        shifted = self.shifted(node.slice)
        if shifted is None or not isinstance(node.value, ast.Name) or node.value.id in self.frame.env:
            return None
        rows = literal(self.frame.module, node.value.id)
        if not isinstance(rows, (list, tuple)) or not rows:
            return None
        widths = {len(r) if isinstance(r, (list, tuple)) else None for r in rows}
        if len(widths) != 1 or not all(_number(x) for r in rows for x in (r if isinstance(r, (list, tuple)) else [r])):
            return None
        run, k = shifted
        at = Genes(run.base, run.start.shift(k), run.stop.shift(k))
        first, last = self.position(at.base, at.start), self.position(at.base, at.stop)
        if self.sp.torch:
            self.note(Topic.CONSTANT_DTYPE, node)
        entries = ast.Subscript(self.sp.vector(node.value), ast.Slice(first, last), ast.Load())
        (width,) = widths
        if width is None:
            return Value(entries, replace(ITEMS, span=at))
        return Value(self.sp.columns(entries), replace(ITEMS, span=at, items=width))

    def gathered(self, node: ast.Subscript) -> Value | None:
        """``P[j][m]``, ``P[j, m]``: a module's constant table at indices of which one differs between individuals (a
        gene used as an index: the row of the job it names), one entry per individual; None where it is not one."""
        indices: list[ast.expr] = []
        base: ast.expr = node
        while isinstance(base, ast.Subscript):
            indices = list(base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]) + indices
            base = base.value
        if not isinstance(base, ast.Name) or base.id in self.frame.env or any(isinstance(i, ast.Slice)
                                                                              for i in indices):
            return None
        found = self.resolve(base.id)
        values = [self.expr(i) for i in indices]
        if found.what != "constant" or not any(v.kind.population for v in values) or any(
                v.kind.genes or v.kind.boolean or v.kind.sequence or v.kind.items is not None for v in values):
            return None
        table = literal(found.module, base.id) if found.module is not None else NotImplemented
        if table is not NotImplemented and _depth(table) != len(indices):
            raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX,
                          "not one number of a table of numbers")
        self.need(found, base.id)
        if self.sp.torch:
            self.note(Topic.CONSTANT_DTYPE, node)
        at = values[0].node if len(values) == 1 else ast.Tuple([v.node for v in values], ast.Load())
        return Value(ast.Subscript(self.array_of(base), at, ast.Load()), Kind(population=True))

    def array_of(self, table: ast.Name) -> ast.Name:
        """A module's constant table as an array the function makes once, at its start: its name there."""
        if table.id not in self.frame.tables:
            base = f"{table.id}_{'tensor' if self.sp.torch else 'array'}"
            taken = set(self.frame.bound) | set(self.frame.env) | set(self.frame.module.constants) | set(
                self.frame.module.functions) | {a.targets[0].id for a in self.frame.tables.values()
                                                if isinstance(a.targets[0], ast.Name)}
            identifier = next(f"{base}{i or ''}" for i in range(1000) if f"{base}{i or ''}" not in taken)
            self.frame.tables[table.id] = ast.Assign([ast.Name(identifier, ast.Store())], self.sp.vector(table),
                                                     lineno=0)
        target = self.frame.tables[table.id].targets[0]
        assert isinstance(target, ast.Name)
        return name(target.id)

    def shape(self, node: ast.Subscript) -> Value:
        """``row.shape[0]`` of an ndarray row: its number of genes."""
        assert isinstance(node.value, ast.Attribute)
        row = self.expr(node.value.value)
        if row.kind.sequence == "array" and row.kind.span and isinstance(node.slice, ast.Constant) \
                and node.slice.value in (0, -1):
            return Value(self.length(row.kind.span), SCALAR)
        if row.kind == SCALAR:
            return Value(node, SCALAR)
        raise Decline(node, f"`{self.frame.module.segment(node)}`", Reason.INDEX)

    def genes(self, span: Genes, index: ast.expr, node: ast.Subscript, sequence: str) -> Value:
        """``row[k]`` (a column), ``row[a:b]`` (a run of genes, a list or an array as the ``sequence`` sliced is),
        ``row[i + k]`` for ``i`` over a range of genes."""
        if isinstance(index, ast.Slice):
            start, stop = self.integer(index.lower, node), self.integer(index.upper, node)
            if index.step is not None or (index.lower and start is None) or (index.upper and stop is None):
                raise Decline(node, f"slice `{self.frame.module.segment(node)}`", Reason.INDEX,
                              "a step" if index.step else "bounds not written as constants")
            run = Genes(span.base, span.start if start is None else self.at(span, start),
                        span.stop if stop is None else self.at(span, stop))
            return Value(self.run(run, node), replace(CELLS, sequence=sequence, span=run))
        shifted = self.shifted(index)
        if shifted is not None:
            over, k = shifted
            if span != replace(WHOLE, base=span.base):
                raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX)
            run = Genes(span.base, over.start.shift(k), over.stop.shift(k))
            return Value(self.run(run, node), replace(CELLS, span=run))
        constant = self.integer(index, node)
        if constant is not None:
            return Value(self.column(span.base, self.at(span, constant), node), Kind(population=True))
        value = self.expr(index)
        if value.kind == SCALAR and span == replace(WHOLE, base=span.base):  # an index the same for everyone
            return Value(ast.Subscript(name(span.base), ast.Tuple([ast.Slice(), value.node], ast.Load()),
                                       ast.Load()), Kind(population=True))
        raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX)

    def shifted(self, index: ast.expr) -> tuple[Genes, int] | None:
        """(the run of an index over the genes, k) for ``i``, ``i + k`` or ``i - k``."""
        k, target = 0, index
        if isinstance(index, ast.BinOp) and isinstance(index.op, (ast.Add, ast.Sub)) \
                and isinstance(index.right, ast.Constant) and isinstance(index.right.value, int):
            k = index.right.value if isinstance(index.op, ast.Add) else -index.right.value
            target = index.left
        bound = self.frame.env.get(target.id) if isinstance(target, ast.Name) else None
        return (bound.index, k) if bound is not None and bound.index is not None else None

    def integer(self, node: ast.expr | None, where: ast.AST) -> int | None:
        """The value of a constant index (a literal, or a module constant written as one)."""
        if node is None:
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.integer(node.operand, where)
            return None if inner is None else -inner
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id not in self.frame.env:
            found = self.resolve(node.id)
            if found.what == "constant" and found.module is not None:
                value = literal(found.module, node.id)
                if isinstance(value, int) and not isinstance(value, bool):
                    return value
        return None

    def at(self, span: Genes, k: int) -> Bound:
        """Where index ``k`` of a run of genes falls in the individual."""
        return span.start.shift(k) if k >= 0 else span.stop.shift(k)

    def column(self, base: str, at: Bound, node: ast.AST) -> ast.expr:
        """``base[:, k]``: one gene of every individual."""
        if (at.end and at.off >= 0) or (not at.end and at.off < 0):
            raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX, "past the genes")
        return ast.Subscript(name(base), ast.Tuple([ast.Slice(), number(at.off)], ast.Load()), ast.Load())

    def run(self, run: Genes, node: ast.AST) -> ast.expr:
        """``base[:, a:b]`` (``base`` itself for all its genes)."""
        if (run.start.end and run.start.off > 0) or (not run.start.end and run.start.off < 0) or \
                (run.stop.end and run.stop.off > 0) or (not run.stop.end and run.stop.off < 0):
            raise Decline(node, f"index `{self.frame.module.segment(node)}`", Reason.INDEX, "past the genes")
        if run == replace(WHOLE, base=run.base):
            return name(run.base)
        lower = None if run.start == Bound(False, 0) else number(run.start.off)
        upper = None if run.stop == Bound(True, 0) else number(run.stop.off)
        return ast.Subscript(name(run.base), ast.Tuple([ast.Slice(), ast.Slice(lower, upper)], ast.Load()),
                             ast.Load())

    def position(self, base: str, at: Bound) -> ast.expr:
        """A gene's index in the individual ``base``, as an expression (counted from its end: from its length)."""
        return self.length(Genes(base, Bound(False, 0), at)) if at.end else number(at.off)

    def length(self, span: Genes) -> ast.expr:
        """How many genes a run has, as an expression."""
        times, plus = span.length
        if times == 0:
            return number(plus)
        if times != 1:
            raise Decline(name(span.base), "a run of genes counted from both ends", Reason.INDEX)
        genes: ast.expr = ast.Subscript(ast.Attribute(name(span.base), "shape", ast.Load()), ast.Constant(1),
                                        ast.Load())
        return genes if plus == 0 else ast.BinOp(genes, ast.Add() if plus > 0 else ast.Sub(), ast.Constant(abs(plus)))

    # displays

    def _Tuple(self, node: ast.Tuple | ast.List) -> Value:
        values = [self.expr(e) for e in node.elts]
        if any(v.kind.items is not None for v in values):
            raise Decline(node, construct(node), Reason.VALUE, "nested")
        kind = replace(join(*(v.kind for v in values)) if values else SCALAR, items=len(values),
                       boolean=all(v.kind.boolean for v in values) and bool(values))
        same = all(v.node is e for v, e in zip(values, node.elts))
        if same:
            return Value(node, kind, any(v.warns for v in values))
        rebuilt = ast.Tuple([v.node for v in values], ast.Load()) if isinstance(node, ast.Tuple) else \
            ast.List([v.node for v in values], ast.Load())
        return Value(rebuilt, kind, any(v.warns for v in values))

    _List = _Tuple


def chain(node: ast.expr, symbol: type[ast.operator]) -> list[ast.expr]:
    """The operands of ``a & b & c`` (``symbol`` BitAnd) or of ``|``: ``&`` and ``|`` of truth values associate."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, symbol):
        return chain(node.left, symbol) + chain(node.right, symbol)
    return [node]


def construct(node: ast.AST) -> str:
    """A short name for a construct, for a decline."""
    names: dict[type[ast.AST], str] = {
        ast.While: "`while` loop", ast.Try: "`try` statement", ast.With: "`with` statement", ast.Raise: "`raise`",
        ast.Assert: "`assert`", ast.Delete: "`del`", ast.Global: "`global`", ast.Nonlocal: "`nonlocal`",
        ast.FunctionDef: "nested function", ast.ClassDef: "nested class", ast.Lambda: "`lambda`",
        ast.Dict: "dict", ast.Set: "set", ast.DictComp: "dict comprehension", ast.SetComp: "set comprehension",
        ast.JoinedStr: "f-string", ast.Starred: "`*` unpacking", ast.NamedExpr: "`:=`", ast.Yield: "`yield`",
        ast.Break: "`break`", ast.Continue: "`continue`", ast.Import: "`import`", ast.ImportFrom: "`import`",
        ast.Match: "`match` statement", ast.Await: "`await`", ast.YieldFrom: "`yield from`",
        ast.ListComp: "list comprehension", ast.GeneratorExp: "generator expression", ast.Tuple: "tuple",
        ast.List: "list", ast.For: "`for` loop", ast.Return: "`return`", ast.Slice: "slice",
    }
    if isinstance(node, ast.Constant):
        return "`None`" if node.value is None else f"{type(node.value).__name__} constant"
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
        return f"`{OPERATORS.get(type(node.op), type(node.op).__name__)}` operator"
    if isinstance(node, ast.Compare):
        return f"`{OPERATORS.get(type(node.ops[0]), type(node.ops[0]).__name__)}` test"
    return names.get(type(node), type(node).__name__)


OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.Invert: "~", ast.Not: "not", ast.USub: "-", ast.UAdd: "+", ast.And: "and", ast.Or: "or", ast.In: "in",
    ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">=",
    ast.Eq: "==", ast.NotEq: "!=",
}


def _depth(table: object) -> int | None:
    """How many indices reach a number of a table of numbers (nested lists or tuples of one length at each level;
    None: not one)."""
    if _number(table):
        return 0
    if not isinstance(table, (list, tuple)) or not table:
        return None
    depths = {_depth(row) for row in table}
    lengths = {len(row) if isinstance(row, (list, tuple)) else None for row in table}
    depth = depths.pop() if len(depths) == 1 and len(lengths) == 1 else None
    return None if depth is None else depth + 1


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
