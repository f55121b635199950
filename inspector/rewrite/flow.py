"""Statements of a per-individual function, written over the population: assignments, ``if`` statements (their
assignments merged with a where, their returns collected), ``return`` chains folded into one where (or into ``&``
and ``|`` where every return is True or False), loops over the genes turned into reductions, loops over constants
kept with their bodies vectorized."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from inspector.rewrite.calls import Iteration, Translator
from inspector.rewrite.dialect import call, name
from inspector.rewrite.exprs import construct
from inspector.rewrite.loops import gene_loop
from inspector.rewrite.model import Reason, Topic
from inspector.rewrite.values import (COLUMN, PREAMBLE, SCALAR, WHOLE, Binding, Bound, Decline, Genes, Kind, Value,
                                      join, joined, varies)

ACCUMULATE = {ast.Add: "sum", ast.Sub: "sub", ast.Mult: "prod"}


@dataclass
class Ret:
    """A return: under ``test`` (None: wherever it is reached), its ``values`` (one per objective when ``items``),
    and for the check that nothing it reads changes later, where it stands (``step``) and the names it reads."""

    test: Value | None
    values: list[Value]
    items: bool
    step: int
    reads: set[str]
    node: ast.AST  # the `if` whose test it is under (the `return` itself while it has none)


@dataclass
class Steps:
    """Assignments so far, and the step of each name's last one (shared by a function's nested blocks)."""

    count: int = 0
    last: dict[str, int] = field(default_factory=dict)


class Body:
    """Translates a block: ``out`` its statements, ``returns`` its returns, ``always`` whether every path returns."""

    def __init__(self, tr: Translator, steps: Steps, returned: bool = False) -> None:
        self.tr = tr
        self.steps = steps
        self.out: list[ast.stmt] = []
        self.returns: list[Ret] = []
        self.always = False
        self.returned = returned  # a return came before: what follows runs on individuals that returned too

    def block(self, statements: list[ast.stmt]) -> Body:
        for statement in statements:
            if self.always:
                break
            mark = len(self.tr.frame.preamble)
            handler = getattr(self, "_" + type(statement).__name__, None)
            if handler is None:
                raise Decline(statement, construct(statement), Reason.STATEMENT)
            produced: list[ast.stmt] = handler(statement)
            self.out += self.tr.frame.preamble[mark:] + produced
            del self.tr.frame.preamble[mark:]
            self.returned = self.returned or bool(self.returns)
        return self

    def nested(self, statements: list[ast.stmt]) -> Body:
        """A branch's block, with its own copy of the locals."""
        inner = Translator(replace(self.tr.frame, env=dict(self.tr.frame.env)))
        return Body(inner, self.steps, self.returned).block(statements)

    def bind(self, identifier: str, value: Value, length: Bound | None = None, entries: bool = False) -> None:
        kind = value.kind
        if kind.sequence and kind.span:  # a run of genes by its own name: x[0] is then x[:, 0]
            kind = replace(kind, span=Genes(identifier, Bound(False, 0), Bound(True, 0)))
        self.tr.frame.env[identifier] = Binding(kind, name(identifier), length=length, entries=entries)
        self.steps.count += 1
        self.steps.last[identifier] = self.steps.count
        if value.warns and self.returned:
            self.tr.note(Topic.BOTH_BRANCHES, value.node)

    def _Expr(self, node: ast.Expr) -> list[ast.stmt]:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return []
        what = construct(node.value) if not isinstance(node.value, ast.Call) else \
            f"call to `{self.tr.frame.module.segment(node.value.func)}`"
        raise Decline(node, what, Reason.SIDE_EFFECT)

    def _Pass(self, node: ast.Pass) -> list[ast.stmt]:
        return []

    def _While(self, node: ast.While) -> list[ast.stmt]:
        raise Decline(node, construct(node), Reason.NOT_GENE_LOOP)

    def _Assign(self, node: ast.Assign | ast.AnnAssign) -> list[ast.stmt]:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if node.value is None:
            return []
        if len(targets) == 1 and isinstance(targets[0], ast.Subscript):
            return self.entry(targets[0], self.owned(targets[0], node), node.value, node)
        value = self.tr.expr(node.value)
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) == len(targets):
            length = self.tr.bound(node.value) if not varies(value) else None
            made = isinstance(value.node, ast.List) or (isinstance(value.node, ast.BinOp) and isinstance(
                value.node.op, ast.Mult) and ast.List in (type(value.node.left), type(value.node.right)))
            if made and value.kind.items is not None and not varies(value) and self.set_later(names, node):
                value = self.per_individual(value)
            for n in names:
                self.bind(n, value, length, made and value.kind.items is not None)
            same = value.node is node.value and isinstance(node, ast.Assign)
            return [node] if same else [ast.Assign([ast.Name(n, ast.Store()) for n in names], value.node,
                                                   lineno=node.lineno)]
        if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)):
            return self.unpack(targets[0], value, node)
        raise Decline(node, f"assignment to `{self.tr.frame.module.segment(targets[0])}`", Reason.SIDE_EFFECT)

    _AnnAssign = _Assign

    def unpack(self, target: ast.Tuple | ast.List, value: Value, node: ast.stmt) -> list[ast.stmt]:
        """``x, y, z = individual`` (the population's columns), or of a tuple (of constants, or of a helper's)."""
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
        if len(names) != len(target.elts):
            raise Decline(target, "unpacking into items or `*`", Reason.VALUE)
        if value.kind.sequence and value.kind.span:
            source = self.tr.sp.columns(value.node)
            element = Kind(population=True)
        elif value.kind.items == len(names) or not varies(value):
            source, element = value.node, value.kind.element()
        else:
            raise Decline(node, f"unpacking `{self.tr.frame.module.segment(target)}`", Reason.VALUE)
        for n in names:
            self.bind(n, Value(name(n), element, value.warns))
        store = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
        return [ast.Assign([store], source, lineno=node.lineno)]

    def set_later(self, names: list[str], node: ast.stmt) -> bool:
        """Whether the user's function sets an entry of one of ``names`` after ``node`` (``t[m] = ...``)."""
        function = self.tr.frame.module.functions.get(self.tr.frame.function)
        return function is not None and any(
            isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
            and n.value.id in names and n.lineno > node.lineno for n in ast.walk(function))

    def per_individual(self, value: Value) -> Value:
        """A list of numbers the function then sets entries of, made one entry per individual from the start
        (``[np.full(n, 0)] * K``): an entry it never sets is then one per individual too."""
        like = self.tr.sp.like
        if like is None:
            return value
        count = call(name("len"), name(like))
        node = value.node
        if isinstance(node, ast.BinOp):  # [c] * K (or K * [c])
            shown, times = (node.left, node.right) if isinstance(node.left, ast.List) else (node.right, node.left)
            assert isinstance(shown, ast.List)
            node = ast.BinOp(ast.List([self.tr.sp.full(count, e) for e in shown.elts], ast.Load()), ast.Mult(), times)
        elif isinstance(node, ast.List):
            node = ast.List([self.tr.sp.full(count, e) for e in node.elts], ast.Load())
        return Value(node, replace(join(value.kind, COLUMN), items=value.kind.items), value.warns)

    def owned(self, target: ast.Subscript, node: ast.stmt) -> Binding:
        """The list a function made whose entry ``target`` sets (setting any other's changes the caller's)."""
        bound = self.tr.frame.env.get(target.value.id) if isinstance(target.value, ast.Name) else None
        if bound is None or not bound.entries or isinstance(target.slice, ast.Slice):
            raise Decline(node, f"assignment to `{self.tr.frame.module.segment(target)}`", Reason.SIDE_EFFECT)
        return bound

    def entry(self, target: ast.Subscript, bound: Binding, value_node: ast.expr, node: ast.stmt) -> list[ast.stmt]:
        """``t[m] = value`` in a list the function made, at an index the same for every individual: the list stays
        Python's, each of its entries a number or one per individual."""
        assert isinstance(target.value, ast.Name)
        index, value = self.tr.expr(target.slice), self.tr.expr(value_node)
        if varies(index):
            raise Decline(node, f"index `{self.tr.frame.module.segment(target)}`", Reason.INDEX)
        if value.kind.items is not None:
            raise Decline(node, f"assignment to `{self.tr.frame.module.segment(target)}`", Reason.VALUE, "a list")
        kind = replace(join(bound.kind, value.kind), items=bound.kind.items,
                       boolean=bound.kind.boolean and value.kind.boolean)
        self.bind(target.value.id, Value(name(target.value.id), kind, value.warns), entries=True)
        store = ast.Subscript(name(target.value.id), index.node, ast.Store())
        return [ast.Assign([store], value.node, lineno=node.lineno)]

    def _AugAssign(self, node: ast.AugAssign) -> list[ast.stmt]:
        if isinstance(node.target, ast.Subscript):
            bound = self.owned(node.target, node)
            read = ast.copy_location(ast.Subscript(node.target.value, node.target.slice, ast.Load()), node.target)
            return self.entry(node.target, bound, ast.copy_location(ast.BinOp(read, node.op, node.value), node), node)
        if not isinstance(node.target, ast.Name):
            raise Decline(node, f"assignment to `{self.tr.frame.module.segment(node.target)}`", Reason.SIDE_EFFECT)
        before = self.tr.frame.env.get(node.target.id)
        operand = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
        value = self.tr.expr(ast.copy_location(ast.BinOp(operand, node.op, node.value), node))
        self.bind(node.target.id, value)
        if before is not None and not varies(Value(value.node, before.kind)) and isinstance(value.node, ast.BinOp):
            return [ast.AugAssign(ast.Name(node.target.id, ast.Store()), node.op, value.node.right,
                                  lineno=node.lineno)]
        return [ast.Assign([ast.Name(node.target.id, ast.Store())], value.node, lineno=node.lineno)]

    def _Return(self, node: ast.Return) -> list[ast.stmt]:
        if node.value is None:
            raise Decline(node, "`return` without a value", Reason.VALUE)
        if isinstance(node.value, (ast.Tuple, ast.List)):
            values, items = [self.tr.expr(e) for e in node.value.elts], True
        else:
            values, items = [self.tr.expr(node.value)], False
        reads = {n.id for v in values for n in ast.walk(v.node) if isinstance(n, ast.Name)}
        self.returns.append(Ret(None, values, items, self.steps.count, reads, node))
        self.always = True
        return []

    def _If(self, node: ast.If) -> list[ast.stmt]:
        test = self.tr.expr(node.test)
        if not varies(test):
            return self.kept_if(node, test)
        then, other = self.nested(node.body), self.nested(node.orelse)
        yes = Value(self.tr.condition(test), replace(test.kind, boolean=True))
        for r in then.returns:
            self.returns.append(self.under(r, yes, node))
        if other.returns and then.always:  # rows where the test held returned in the first arm: no test needed
            self.returns += other.returns
        elif other.returns:
            no = Value(self.tr.negate(yes.node, node), yes.kind)
            self.returns += [self.under(r, no, node) for r in other.returns]
        self.always = then.always and other.always
        return self.merge(yes, then, other, node)

    def under(self, r: Ret, condition: Value, node: ast.If) -> Ret:
        """A return of an arm, under the arm's condition."""
        if r.test is None:
            return replace(r, test=condition, node=node)
        return replace(r, test=self.tr.logical(ast.And(), [condition, r.test], node))

    def kept_if(self, node: ast.If, test: Value) -> list[ast.stmt]:
        """An ``if`` on a value the same for every individual, kept as Python's (its arms may not return)."""
        then, other = self.nested(node.body), self.nested(node.orelse)
        if then.returns or other.returns:
            raise Decline(node, "`return` under a test of constants", Reason.STATEMENT)
        self.adopt(then, other)
        return [ast.If(test.node, then.out or [ast.Pass()], other.out, lineno=node.lineno)]

    def adopt(self, *branches: Body) -> None:
        """Bind the names the branches assigned, of the kind joining theirs and the one before."""
        for identifier in {n for b in branches for n in b.tr.frame.env if b.tr.frame.env[n] is not
                           self.tr.frame.env.get(n)}:
            bound = [b.tr.frame.env[identifier] for b in branches if identifier in b.tr.frame.env]
            before = self.tr.frame.env.get(identifier)
            kind = joined(*(b.kind for b in bound), *([before.kind] if before else []))
            self.bind(identifier, Value(name(identifier), kind), entries=all(b.entries for b in bound))

    def merge(self, test: Value, then: Body, other: Body, node: ast.If) -> list[ast.stmt]:
        """The assignments of an ``if``'s arms as where's; an arm that always returns leaves the other's
        assignments unconditional."""
        hoisted = [s for b in (then, other) for s in b.out if getattr(s, "lineno", None) == PREAMBLE]
        arms = [self.assignments(b, node) for b in (then, other)]
        if not arms[0] and not arms[1]:
            return hoisted
        out: list[ast.stmt] = list(hoisted)
        changed = {n for arm in arms for n, _ in arm}
        reads = {n.id for n in ast.walk(test.node) if isinstance(n, ast.Name)}
        if reads & changed or (len(changed) > 1 and not isinstance(test.node, ast.Name)):
            mask = self.fresh("mask", changed)  # not a name an arm assigns (a nested if's own mask)
            out.append(ast.Assign([ast.Name(mask, ast.Store())], test.node, lineno=node.lineno))
            self.bind(mask, Value(name(mask), test.kind))
            test = Value(name(mask), test.kind)
        simple = all(len({n for n, _ in arm}) == len(arm) for arm in arms) and not any(
            n.id in {a for a, _ in arms[1]} for _, v in arms[1] for n in ast.walk(v.node) if isinstance(n, ast.Name))
        other_values = dict(arms[1]) if simple else {}
        for identifier, value in arms[0]:
            out.append(self.arm(identifier, test, value, other_values.pop(identifier, None), other.always, True, node))
        for identifier, value in arms[1] if not simple else list(other_values.items()):
            out.append(self.arm(identifier, test, None, value, then.always, False, node))
        return out

    def arm(self, identifier: str, test: Value, yes: Value | None, no: Value | None, returns: bool, first: bool,
            node: ast.AST) -> ast.stmt:
        """One name's assignment after an ``if``: a where of its arms' values (its value before where an arm
        leaves it), or unconditional where the other arm returns or it had no value before."""
        before = self.tr.frame.env.get(identifier)
        update = self.update(identifier, yes if no is None else no if yes is None else None)
        if before is not None and update is not None and not returns:  # x + where(test, e, 0): as += e does
            op, operand = update
            zero = Value(ast.Constant(1 if isinstance(op, ast.Mult) else 0), SCALAR)
            added = self.tr.where(test.node, test.kind, operand if yes is not None else zero,
                                  zero if yes is not None else operand, node)
            value = Value(ast.BinOp(name(identifier), op, added.node), join(before.kind, added.kind), added.warns)
        elif yes is not None and no is not None:
            value = self.tr.where(test.node, test.kind, yes, no, node)
        elif returns or before is None:
            only = yes or no
            assert only is not None
            value = only
            if value.warns:
                self.tr.note(Topic.BOTH_BRANCHES, node)
        else:
            old = Value(name(identifier), before.kind)
            value = self.tr.where(test.node, test.kind, yes or old, old if yes is not None else no or old, node)
        self.bind(identifier, value)
        return ast.Assign([ast.Name(identifier, ast.Store())], value.node, lineno=getattr(node, "lineno", 1))

    def update(self, identifier: str, value: Value | None) -> tuple[ast.operator, Value] | None:
        """(op, e) where ``value`` is ``identifier + e`` (or -, *) and e does not read ``identifier``."""
        if value is None or not isinstance(value.node, ast.BinOp) or not isinstance(value.node.op, (
                ast.Add, ast.Sub, ast.Mult)):
            return None
        left, right = value.node.left, value.node.right
        if not (isinstance(left, ast.Name) and left.id == identifier) or any(
                isinstance(n, ast.Name) and n.id == identifier for n in ast.walk(right)):
            return None
        env = self.tr.frame.env
        individuals = {self.tr.sp.like} | {b.kind.span.base for b in env.values() if b.kind.span}
        varying = any(isinstance(n, ast.Name) and (n.id in individuals or (n.id in env and varies(Value(
            n, env[n.id].kind)))) for n in ast.walk(right))  # e.g. WEIGHTS[i] in a loop kept: one number
        return value.node.op, Value(right, value.kind if varying else SCALAR, value.warns)

    def assignments(self, branch: Body, node: ast.AST) -> list[tuple[str, Value]]:
        """A branch's statements as (name, value): anything but an assignment to a name declines."""
        found = []
        for s in branch.out:
            if getattr(s, "lineno", None) == PREAMBLE:
                continue
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                s = ast.Assign([ast.Name(s.target.id, ast.Store())], ast.BinOp(name(s.target.id), s.op, s.value))
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Subscript):
                raise Decline(node, f"an entry of `{ast.unparse(s.targets[0].value)}` set under a per-individual test",
                              Reason.CONDITIONAL_LOOP)
            if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
                raise Decline(node, "a loop or unpacking under a per-individual test", Reason.CONDITIONAL_LOOP)
            kind = branch.tr.frame.env[s.targets[0].id].kind
            found.append((s.targets[0].id, Value(s.value, kind)))
        return found

    def fresh(self, base: str, taken_too: set[str] | frozenset[str] = frozenset()) -> str:
        taken = set(self.tr.frame.bound) | set(self.tr.frame.env) | taken_too
        return next(f"{base}{i or ''}" for i in range(1000) if f"{base}{i or ''}" not in taken)

    def _For(self, node: ast.For) -> list[ast.stmt]:
        if node.orelse:
            raise Decline(node, "`for ... else`", Reason.STATEMENT)
        iteration = self.tr.iteration(node.target, node.iter, list(node.body))
        if not iteration.genes:
            return self.kept_loop(node, iteration)
        frame = self.tr.frame
        marks, imports, tables = (len(frame.preamble), len(frame.notes)), set(frame.imports), dict(frame.tables)
        try:
            return gene_loop(self, node, iteration)
        except Decline as e:
            if e.reason not in (Reason.RECURRENCE, Reason.CONDITIONAL_LOOP, Reason.NESTED) or (
                    e.reason is Reason.NESTED and self.over_genes(e.node, iteration)):
                raise
            del frame.preamble[marks[0]:], frame.notes[marks[1]:]
            frame.imports.intersection_update(imports)
            frame.tables.clear()
            frame.tables.update(tables)
            return self.state_loop(node, iteration, e)

    def over_genes(self, inner: ast.AST, outer: Iteration) -> bool:
        """Whether a loop inside a loop over the genes is over the genes too (or may be: then no state loop)."""
        if not isinstance(inner, ast.For):
            return True
        try:
            return self.tr.child(outer.bindings).iteration(inner.target, inner.iter, list(inner.body)).genes
        except Decline:
            return True

    def state_loop(self, node: ast.For, iteration: Iteration, declined: Decline) -> list[ast.stmt]:
        """A loop over the genes that carries a state from one gene to the next (a running total that a test reads,
        ``t = max(t, ...) + p``), which no reduction writes: kept as Python's loop over the gene positions, its body
        over the population, each name it carries one entry per individual (``for g in x`` is written ``for j in
        range(len(x)): g = x[j]``, ``enumerate(x)`` so with its index); ``declined``: why no reduction did."""
        span, target, it = iteration.span, node.target, node.iter
        whole = span is not None and span == replace(WHOLE, base=span.base)
        prefix: list[ast.stmt] = []
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate":
            if not whole or len(it.args) != 1 or not isinstance(target, ast.Tuple):
                raise declined
            index, gene = target.elts
            prefix, target, it = [_assign(gene, it.args[0], index, node)], index, _positions(it.args[0], node)
        elif not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            if not whole or not isinstance(target, ast.Name):
                raise declined
            index = ast.Name(self.fresh("j"), ast.Load())
            prefix, target, it = [_assign(target, it, index, node)], index, _positions(it, node)
        if not isinstance(target, ast.Name):
            raise declined
        bounds = [self.tr.expr(a) for a in it.args] if isinstance(it, ast.Call) else []
        if any(varies(b) for b in bounds):
            raise declined
        kept = Iteration(False, {target.id: Binding(SCALAR, name(target.id))},
                         call(name("range"), *(b.node for b in bounds)))
        loop = ast.copy_location(ast.For(ast.Name(target.id, ast.Store()), it, prefix + list(node.body), []), node)
        self.tr.note(Topic.GENE_LOOP, node)
        before = {k: b.kind for k, b in self.tr.frame.env.items()}
        for n in ast.walk(loop):  # each name the loop assigns and had before: one per individual from the start
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
                n = ast.Name(n.value.id, ast.Store())  # an entry of a list: each of its entries
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in before:
                self.tr.frame.env[n.id] = replace(self.tr.frame.env[n.id], kind=replace(
                    join(before[n.id], COLUMN), items=before[n.id].items))
        out = self.kept_loop(loop, kept)
        assert span is not None
        count = call(name("len"), name(span.base))
        carried = [k for k, kind in before.items() if not (kind.population or kind.genes)  # a state the loop carries
                   and (self.tr.frame.env[k].kind.population or self.tr.frame.env[k].kind.genes)]
        fills = []
        for k in carried:  # its value before the loop, one per individual (where a number set just before: there)
            at = next((i for i in range(len(self.out) - 1, -1, -1) if _constant_of(self.out[i]) in (None, k)), None)
            s = self.out[at] if at is not None else None
            if at is not None and isinstance(s, ast.Assign) and _constant_of(s) == k:
                self.out[at] = ast.copy_location(ast.Assign([ast.Name(k, ast.Store())], self.tr.sp.full(
                    count, s.value)), s)
            else:
                fills.append(ast.Assign([ast.Name(k, ast.Store())], self.tr.sp.full(count, name(k)),
                                        lineno=node.lineno))
        return fills + out

    def kept_loop(self, node: ast.For, iteration: Iteration) -> list[ast.stmt]:
        """A loop over constants, kept as Python's, its body over the population (translated twice: the first
        pass finds the kinds its names take over the iterations)."""
        frame = self.tr.frame
        trial = Translator(replace(frame, env={**frame.env, **iteration.bindings}, notes=[], preamble=[],
                                   imports=set()))
        first = Body(trial, Steps(), self.returned).block(list(node.body))
        env = dict(frame.env)
        for identifier, bound in first.tr.frame.env.items():
            if identifier in frame.env and bound is not frame.env[identifier] and identifier not in \
                    iteration.bindings:
                env[identifier] = replace(bound, kind=joined(bound.kind, frame.env[identifier].kind))
        body = Body(Translator(replace(frame, env={**env, **iteration.bindings})), self.steps,
                    self.returned).block(list(node.body))
        if body.returns or any(isinstance(n, (ast.Break, ast.Continue)) for s in node.body for n in ast.walk(s)):
            raise Decline(node, construct(node), Reason.EARLY_EXIT)
        self.adopt(body)
        return [ast.For(node.target, iteration.iter, body.out or [ast.Pass()], [], lineno=node.lineno)]


def _constant_of(statement: ast.stmt) -> str | None:
    """The name a ``name = number`` statement binds; None for any other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
            statement.targets[0], ast.Name) and isinstance(statement.value, ast.Constant):
        return statement.targets[0].id
    return None


def _assign(target: ast.expr, sequence: ast.expr, index: ast.expr, node: ast.For) -> ast.stmt:
    """``target = sequence[index]``, at the loop's line."""
    store = ast.Name(target.id, ast.Store()) if isinstance(target, ast.Name) else target
    return ast.copy_location(ast.Assign([store], ast.Subscript(sequence, index, ast.Load())), node)


def _positions(sequence: ast.expr, node: ast.For) -> ast.Call:
    """``range(len(sequence))``, at the loop's line."""
    return ast.copy_location(call(name("range"), call(name("len"), sequence)), node)


def folded(tr: Translator, returns: list[Ret], component: int, node: ast.AST) -> Value:
    """The value of a chain of returns: the first whose test holds (the last one's test is implied)."""
    result = returns[-1].values[component]
    for r in reversed(returns[:-1]):
        assert r.test is not None
        value = r.values[component]
        constant = value.node.value if isinstance(value.node, ast.Constant) else None
        if result.kind.boolean and isinstance(constant, bool):
            other = result.node.value if isinstance(result.node, ast.Constant) else None
            if constant is False:
                test = Value(tr.negate(r.test.node, r.node), r.test.kind)
                result = test if other is True else tr.logical(ast.And(), [test, result], node)
            else:
                result = r.test if other is False else tr.logical(ast.Or(), [r.test, result], node)
        else:
            result = tr.where(r.test.node, r.test.kind, value, result, r.node)
    return result


def checked_returns(body: Body, function: ast.FunctionDef) -> list[Ret]:
    """The function's returns, where every path returns, no name an early return reads changes after it, and
    every return has as many values."""
    if not body.always:
        last = function.body[-1]
        raise Decline(last, f"end of `{function.name}`", Reason.NO_RETURN)
    for r in body.returns[:-1]:
        changed = {n for n in r.reads | ({x.id for x in ast.walk(r.test.node) if isinstance(x, ast.Name)}
                                         if r.test else set()) if body.steps.last.get(n, 0) > r.step}
        if changed:
            raise Decline(r.node, "early `return`", Reason.CHANGED_AFTER_RETURN, ", ".join(sorted(changed)))
    shapes = {(r.items, len(r.values)) for r in body.returns}
    if len(shapes) > 1:
        raise Decline(body.returns[-1].node, "`return`", Reason.RETURNS)
    return body.returns


def result(body: Body, function: ast.FunctionDef, population: str | None) -> tuple[ast.Return, Kind]:
    """The one ``return`` of the rewritten function and its value's kind: its returns folded (per objective,
    stacked for the entry function, whose population ``population`` names; a helper returns a tuple)."""
    returns = checked_returns(body, function)
    tr = body.tr
    values = [folded(tr, returns, j, function) for j in range(len(returns[-1].values))]
    items = returns[-1].items
    kind = replace(join(*(v.kind for v in values)), boolean=all(v.kind.boolean for v in values))
    kind = replace(kind, items=len(values)) if items else values[0].kind
    if population is None:
        return ast.Return(ast.Tuple([v.node for v in values], ast.Load()) if items else values[0].node), kind
    whole = not items and values[0].kind.items is not None
    if whole and len(returns) == 1:
        return ast.Return(tr.sp.reduce_axis_call("stack", values[0].node)), kind
    if whole:
        raise Decline(returns[-1].node, "`return` of a list", Reason.RETURNS)
    count = ast.Call(name("len"), [name(population)], [])
    nodes = [v.node if varies(v) else tr.sp.full(count, v.node) for v in values]
    return ast.Return(tr.sp.stack(nodes) if items else nodes[0]), kind
