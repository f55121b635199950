"""The mechanical rewrites of a NumPy or torch variant's graph breaks, made in its source: ``np.apply_along_axis(f,
1, pop)`` -> f vectorized; ``.item()`` / ``float(t)`` used only in arithmetic or a comparison -> the tensor; an ``if``
on an array -> np.where / torch.where; a Python loop over genes or constraints (which Dynamo unrolls) -> one
reduction. Every other line is the user's, as written."""

from __future__ import annotations

import ast
import re

from inspector.rewrite import emit
from inspector.rewrite.emit import substitute
from inspector.rewrite.branches import branches
from inspector.rewrite.dialect import Spelling, call, name
from inspector.rewrite.exprs import construct
from inspector.rewrite.layout import Layout
from inspector.rewrite.model import (Breaks, Change, ChangeKind, Declined, Dialect, Note, Reason, Renamed, Rewrite,
                                     RewriteKind, Row, Topic)
from inspector.rewrite.program import Module, Program
from inspector.rewrite.shapes import COLUMN, ZERO_D, Shapes
from inspector.rewrite.unroll import unrolled
from inspector.rewrite.values import Decline
from inspector.rewrite.vectorize import vectorize
from inspector.source import Span, split

ARITHMETIC = (ast.BinOp, ast.Compare, ast.UnaryOp)
HOST = {"item"}


class Edit:
    """One top-level statement of the variant rewritten: its kinds of change and its new statements."""

    def __init__(self, statement: ast.stmt, kinds: list[ChangeKind], new: list[ast.stmt]) -> None:
        self.statement = statement
        self.kinds = kinds
        self.new = new


class Rewriter:
    """Walks the variant's top-level statements, rewriting those with a mechanical rewrite."""

    def __init__(self, program: Program, function: ast.FunctionDef, dialect: Dialect) -> None:
        self.program = program
        self.module = program.main
        self.function = function
        params = function.args.posonlyargs + function.args.args
        self.population = params[0].arg if params else ""
        self.sp = Spelling(dialect, like=self.population or None)
        self.shapes = Shapes(self.population)
        self.edits: list[Edit] = []
        self.declined: list[Declined] = []
        self.notes: list[Note] = []
        self.helpers: list[Rewrite] = []

    def run(self) -> None:
        body = self.function.body
        for index, statement in enumerate(body):
            try:
                new = self.statement(statement, body[index + 1:])
            except Decline as decline:
                self.decline(decline)
                new = [statement]
            for s in new:
                self.shapes.assign(s)

    def decline(self, decline: Decline) -> None:
        node = decline.node
        line = getattr(node, "lineno", 0)
        self.declined.append(Declined(self.function.name, decline.construct, self.module.line(line),
                                      Span(self.module.path, line, getattr(node, "end_lineno", None) or line),
                                      decline.reason, decline.detail))

    def note(self, topic: Topic, node: ast.AST) -> None:
        line: int = node.lineno  # type: ignore[attr-defined]
        found = Note(topic, self.module.line(line), file=self.module.path, line=line)
        if found not in self.notes:
            self.notes.append(found)

    def statement(self, statement: ast.stmt, rest: list[ast.stmt]) -> list[ast.stmt]:
        """The statements standing for ``statement``, its rewrites made (itself when none applies)."""
        kinds: list[ChangeKind] = []
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(
                statement.value.func, ast.Name) and statement.value.func.id == "print":
            try:
                self.items(statement, rest, kinds)
            except Decline as decline:
                self.decline(decline)
            raise Decline(statement, "call to `print`", Reason.SIDE_EFFECT)
        new = self.items(statement, rest, kinds)
        new = self.apply(new, kinds)
        replaced: list[ast.stmt] = [new]
        if isinstance(new, ast.If) and self.shapes.of(new.test) in (ZERO_D, COLUMN):
            replaced = self.where(new, rest)
            kinds.append(ChangeKind.COND if any(isinstance(s, ast.FunctionDef) for s in replaced) else
                         ChangeKind.WHERE)
        elif isinstance(new, ast.For):
            loop = unrolled(new, rest, self.shapes, self.sp, self.population)
            if loop is not None:
                replaced = loop
                kinds.append(ChangeKind.LOOP)
        if kinds:
            self.edits.append(Edit(statement, kinds, replaced))
        if ChangeKind.ITEM in kinds:
            self.note(Topic.HOST_SCALAR, statement)
        return replaced

    def items(self, statement: ast.stmt, rest: list[ast.stmt], kinds: list[ChangeKind]) -> ast.stmt:
        """``.item()`` / ``float(t)`` of an array removed where the number is only computed with or compared."""
        parents = {id(child): node for node in ast.walk(statement) for child in ast.iter_child_nodes(node)}
        found = [n for n in ast.walk(statement) if isinstance(n, ast.Call) and self.host(n)]
        if not found:
            return statement
        for host in found:
            parent = parents.get(id(host))
            if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0],
                                                                                          ast.Name):
                self.uses(parent.targets[0].id, rest, host)
            elif not isinstance(parent, ARITHMETIC) and not (isinstance(parent, ast.If) and parent.test is host):
                raise Decline(host, "`.item()`" if isinstance(host.func, ast.Attribute) else "`float()`",
                              Reason.HOST_VALUE, what_uses(parent))
        kinds.append(ChangeKind.ITEM)
        return stripped(statement, found)

    def host(self, node: ast.Call) -> bool:
        """A call giving a Python number from an array: ``t.item()``, ``float(t)``."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in HOST and not node.args:
            return self.shapes.of(func.value) is not None
        return isinstance(func, ast.Name) and func.id == "float" and len(node.args) == 1 and \
            self.shapes.of(node.args[0]) == ZERO_D

    def uses(self, identifier: str, rest: list[ast.stmt], host: ast.Call) -> None:
        """Every later use of a name bound to ``.item()`` must compute with or compare it."""
        for statement in rest:
            parents = {id(child): node for node in ast.walk(statement) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and node.id == identifier and isinstance(node.ctx, ast.Load):
                    parent = parents.get(id(node))
                    if not isinstance(parent, ARITHMETIC) and not isinstance(parent, (ast.If, ast.AugAssign)):
                        raise Decline(host, "`.item()`", Reason.HOST_VALUE,
                                      f"{what_uses(parent)} at line {node.lineno}")

    def apply(self, statement: ast.stmt, kinds: list[ChangeKind]) -> ast.stmt:
        """``np.apply_along_axis(f, 1, x)`` -> ``f_vectorized(x)``."""
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call) and self.along(n)]
        if not calls or self.sp.torch:
            return statement
        replacements: dict[int, ast.expr] = {}
        for found in calls:
            function = found.args[0]
            assert isinstance(function, ast.Name)
            rewrite = vectorize(self.program, function.id, Dialect.NUMPY, Row.ARRAY, "vectorized")
            if isinstance(rewrite, Declined):
                self.declined.append(Declined(self.function.name, rewrite.construct, rewrite.code, rewrite.span,
                                              rewrite.reason, rewrite.detail or f"in `{function.id}`"))
                return statement
            self.helpers.append(rewrite)
            self.notes += [n for n in rewrite.notes if n not in self.notes]
            replacements[id(found)] = call(name(rewrite.entry), found.args[2])
        kinds.append(ChangeKind.APPLY)
        return replaced(statement, replacements)

    def along(self, node: ast.Call) -> bool:
        """``np.apply_along_axis(f, 1 or -1, x)`` with f a function of the program."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "apply_along_axis" and isinstance(
                func.value, ast.Name) and self.program.resolve(self.module, func.value.id).target == "numpy"):
            return False
        axis = node.args[1] if len(node.args) == 3 else next((k.value for k in node.keywords if k.arg == "axis"),
                                                             None)
        return len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in \
            self.module.functions and isinstance(axis, ast.Constant) and axis.value in (1, -1) and len(
            node.args) == 3

    def where(self, statement: ast.If, rest: list[ast.stmt]) -> list[ast.stmt]:
        """An ``if`` on an array: its masked updates (``if m.any(): x[m] -= e[m]``), its assignments or its two
        returns, each as a where."""
        mask = self.mask(statement.test)
        if mask is not None and not statement.orelse:
            for s in statement.body:
                self.masked(s, mask)
            return [self.unmasked(s, mask) for s in statement.body]
        if all(isinstance(s, ast.Return) for s in [*statement.body, *statement.orelse]) and \
                len(statement.body) == len(statement.orelse) == 1:
            yes, no = statement.body[0], statement.orelse[0]
            assert isinstance(yes, ast.Return) and isinstance(no, ast.Return) and yes.value and no.value
            return [ast.Return(self.sp.where(statement.test, yes.value, no.value), lineno=statement.lineno)]
        arms = [assignments(arm) for arm in (statement.body, statement.orelse)]
        if arms[0] is None or arms[1] is None:
            return self.cond(statement, rest)
        targets = list(dict.fromkeys([*arms[0], *arms[1]]))
        for target in targets:
            if (target not in arms[0] or target not in arms[1]) and target not in self.shapes.names:
                raise Decline(statement, "`if` on an array", Reason.DATA_BRANCH, f"`{target}` set in one arm")
        out: list[ast.stmt] = []
        test = statement.test
        if len(targets) > 1 and not isinstance(test, ast.Name):  # the test once, before any arm's name changes
            taken = self.fresh("taken")
            out.append(ast.Assign([ast.Name(taken, ast.Store())], test, lineno=statement.lineno))
            test = name(taken)
        for target in targets:
            value = self.sp.where(test, arms[0].get(target, name(target)), arms[1].get(target, name(target)))
            out.append(ast.Assign([ast.Name(target, ast.Store())], value, lineno=statement.lineno))
        return out

    def fresh(self, base: str) -> str:
        """A name neither the module nor the function uses."""
        used = {n.id for n in ast.walk(self.function) if isinstance(n, ast.Name)} | set(self.module.functions) | \
            set(self.module.constants) | set(self.module.imports) | set(self.shapes.names)
        return next(f"{base}{i or ''}" for i in range(1000) if f"{base}{i or ''}" not in used)

    def cond(self, statement: ast.If, rest: list[ast.stmt]) -> list[ast.stmt]:
        """An ``if`` on a tensor whose arms are computations (assignments reading each other) -> torch.cond: each
        arm a function of the arrays it reads, returning the names either arm assigns that are read after it."""
        arms = [statement.body, statement.orelse]
        if not self.sp.torch or not all(isinstance(s, (ast.Assign, ast.AugAssign)) and all(
                isinstance(t, ast.Name) for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))
                for arm in arms for s in arm):
            raise Decline(statement, "`if` on an array", Reason.DATA_BRANCH)
        stores = [[n.id for s in arm for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(
            n.ctx, ast.Store)] for arm in arms]
        later = {n.id for s in rest for n in ast.walk(s) if isinstance(n, ast.Name)}
        targets = [t for t in dict.fromkeys(stores[0] + stores[1]) if t in later]
        if not targets:
            raise Decline(statement, "`if` on an array", Reason.DATA_BRANCH, "nothing it computes is read after it")
        reads = [n.id for arm in arms for s in arm for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(
            n.ctx, ast.Load) and n.id in self.shapes.names]
        one_arm = [t for t in targets if not (t in stores[0] and t in stores[1])]
        if any(t not in self.shapes.names for t in one_arm):
            raise Decline(statement, "`if` on an array", Reason.DATA_BRANCH, "a name set in one arm only")
        operands = list(dict.fromkeys(reads + one_arm))
        result: ast.expr = ast.Tuple([name(t) for t in targets], ast.Load()) if len(targets) > 1 else name(targets[0])
        names, out = [], []
        for arm, label in zip(arms, ("true", "false")):
            names.append(self.fresh(f"when_{label}"))
            args = ast.arguments(posonlyargs=[], args=[ast.arg(o) for o in operands], vararg=None, kwonlyargs=[],
                                 kw_defaults=[], kwarg=None, defaults=[])
            out.append(emit.function(names[-1], args, [*arm, ast.Return(result)]))
        store = ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store()) if len(targets) > 1 else \
            ast.Name(targets[0], ast.Store())
        cond = self.sp.fn("cond", statement.test, name(names[0]), name(names[1]),
                          ast.Tuple([name(o) for o in operands], ast.Load()))
        return out + [ast.Assign([store], cond, lineno=statement.lineno)]

    def mask(self, test: ast.expr) -> ast.expr | None:
        """The mask of ``m.any()``, ``np.any(m)`` or ``torch.any(m)``."""
        if isinstance(test, ast.Call) and not test.keywords:
            func = test.func
            if isinstance(func, ast.Attribute) and func.attr == "any" and not test.args:
                return func.value if self.shapes.of(func.value) == COLUMN else None
            if isinstance(func, ast.Attribute) and func.attr == "any" and len(test.args) == 1:
                return test.args[0] if self.shapes.of(test.args[0]) == COLUMN else None
        return None

    def masked(self, statement: ast.stmt, mask: ast.expr) -> None:
        """Decline anything but ``x[m] op= e`` or ``x[m] = e`` with x an array of the function's own."""
        target = statement.target if isinstance(statement, ast.AugAssign) else (
            statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None)
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and
                ast.dump(target.slice) == ast.dump(mask)):
            raise Decline(statement, construct(statement), Reason.MASK)
        params = {a.arg for a in self.function.args.posonlyargs + self.function.args.args}
        if target.value.id in params or self.shapes.of(target.value) != COLUMN:
            raise Decline(statement, f"update of `{target.value.id}`", Reason.ALIASED)

    def unmasked(self, statement: ast.stmt, mask: ast.expr) -> ast.stmt:
        """``x[m] -= e[m]`` -> ``x = where(m, x - e, x)``."""
        assert isinstance(statement, (ast.Assign, ast.AugAssign))
        target = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0]
        assert isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and statement.value
        whole = unmasked(statement.value, mask)
        array = target.value.id
        self.note(Topic.REBINDS, statement)
        value = ast.BinOp(name(array), statement.op, whole) if isinstance(statement, ast.AugAssign) else whole
        return ast.Assign([ast.Name(array, ast.Store())], self.sp.where(mask, value, name(array)),
                          lineno=statement.lineno)


def assignments(arm: list[ast.stmt]) -> dict[str, ast.expr] | None:
    """An arm's assignments to names, each once (None: it does anything else)."""
    found: dict[str, ast.expr] = {}
    for s in arm:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)) or \
                s.targets[0].id in found or any(isinstance(n, ast.Name) and n.id in found for n in ast.walk(s.value)):
            return None
        found[s.targets[0].id] = s.value
    return found


def what_uses(parent: ast.AST | None) -> str:
    """What takes a Python number (for a decline's detail)."""
    if isinstance(parent, (ast.FormattedValue, ast.JoinedStr)):
        return "formatted"
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name):
        return f"passed to `{parent.func.id}`"
    return f"used in {construct(parent)}" if parent is not None else "used"


def stripped(statement: ast.stmt, calls: list[ast.Call]) -> ast.stmt:
    """``statement`` with each host call replaced by the array it reads."""
    ids = {id(c) for c in calls}

    def strip(node: ast.AST) -> ast.AST | None:
        if id(node) not in ids:
            return None
        assert isinstance(node, ast.Call)
        return substitute(node.func.value if isinstance(node.func, ast.Attribute) else node.args[0], strip)
    found = substitute(statement, strip)
    assert isinstance(found, ast.stmt)
    return found


def replaced(node: ast.stmt, replacements: dict[int, ast.expr]) -> ast.stmt:
    found = substitute(node, lambda n: replacements.get(id(n)))
    assert isinstance(found, ast.stmt)
    return found


def unmasked(node: ast.expr, mask: ast.expr) -> ast.expr:
    """``node`` with each ``y[mask]`` read as ``y``."""
    wanted = ast.dump(mask)
    found = substitute(node, lambda n: n.value if isinstance(n, ast.Subscript) and ast.dump(n.slice) == wanted
                       else None)
    assert isinstance(found, ast.expr)
    return found


def spliced(module: Module, function: ast.FunctionDef, edits: list[Edit], new_name: str) -> str:
    """The variant's source with each rewritten statement's lines replaced by its new statements (the user's
    other lines as written), renamed ``new_name``."""
    lines = split(module.source)
    first, last = function.lineno, function.end_lineno or function.lineno
    text = lines[first - 1:last]
    keep = emit.originals([function])
    indent = " " * function.body[0].col_offset
    for edit in sorted(edits, key=lambda s: -s.statement.lineno):
        start, end = edit.statement.lineno - first, (edit.statement.end_lineno or edit.statement.lineno) - first
        new = [line for s in edit.new for line in Layout(module, keep).statement(s, indent)]
        text[start:end + 1] = new
    text[0] = re.sub(rf"\bdef\s+{re.escape(function.name)}\s*\(", f"def {new_name}(", text[0], count=1)
    return "\n".join(text) + "\n"


def rewrite_breaks(program: Program, function: str, dialect: Dialect) -> Breaks:
    """The mechanical rewrites of ``function`` (a NumPy or torch variant of the sample), all made at once, and
    the constructs it leaves with why."""
    definition = program.main.definition(function)
    if definition is None or definition.decorator_list or not definition.body:
        line = getattr(program.main.constants.get(function), "lineno", 0)
        return Breaks(function, None, (Declined(function, f"`{function}`", program.main.line(line),
                                                Span(program.main.path, line, line), Reason.NOT_A_FUNCTION),))
    rewriter = Rewriter(program, definition, dialect)
    rewriter.run()
    if not rewriter.edits:
        return Breaks(function, None, tuple(rewriter.declined))
    return Breaks(function, assembled(rewriter, program, definition, dialect), tuple(rewriter.declined))


def assembled(rewriter: Rewriter, program: Program, definition: ast.FunctionDef, dialect: Dialect) -> Rewrite:
    """The Rewrite of a variant whose statements ``rewriter`` rewrote (and the row functions it vectorized)."""
    module = program.main
    taken = set(module.functions) | set(module.constants) | {h.entry for h in rewriter.helpers}
    new_name = next(n for n in (f"{definition.name}_rewritten{i or ''}" for i in range(100)) if n not in taken)
    text = spliced(module, definition, rewriter.edits, new_name)
    source = "\n\n".join([h.source for h in rewriter.helpers] + [text])
    helpers = [f for h in rewriter.helpers for f in h.functions]
    imports = {rewriter.sp.import_line, *(i for h in rewriter.helpers for i in h.imports)}
    if "math." in text:
        imports.add("import math")
    user = [(module, definition)] + [(program.module(f.module) or module, (program.module(f.module) or module)
                                      .functions[f.user]) for f in helpers]
    old = ast.get_source_segment(module.source, definition) or ""
    spans = tuple(Span(module.path, s.statement.lineno, s.statement.end_lineno or s.statement.lineno)
                  for s in rewriter.edits)
    changes = tuple(Change(kind, span, module.line(span.first)) for s, span in zip(rewriter.edits, spans)
                    for kind in s.kinds)
    return Rewrite(RewriteKind.BREAKS, dialect, Row.POPULATION, definition.name, new_name, source,
                   tuple(sorted(imports, key=lambda line: (line.startswith("from"), line))),
                   emit.diff(old + "\n", source, module.path, definition.lineno), spans, changes,
                   tuple(sorted(rewriter.notes, key=lambda n: (n.file, n.line, n.topic.value))), branches(user),
                   (Renamed(definition.name, new_name, ""), *helpers))
