"""A loop over the genes, written as reductions: its body's names computed for every gene at once, each
accumulator (``+=``, ``-=``, ``*=``, ``acc = max(acc, ...)``) updated once with the sum, product, max or min over the
genes of what the loop added (a where of it under the body's ``if`` tests, ``continue`` included)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Protocol

from inspector.rewrite.calls import IDENTITY, Iteration, Translator
from inspector.rewrite.dialect import name
from inspector.rewrite.exprs import construct
from inspector.rewrite.model import Reason, Topic
from inspector.rewrite.values import Binding, Decline, Value, join, varies

Contributions = dict[str, tuple[str, Value]]  # accumulator -> (sum, sub, prod, max or min; what one gene adds)
REDUCE = {"sum": "sum", "sub": "sum", "prod": "prod", "max": "max", "min": "min"}


class Block(Protocol):
    """The block a gene loop is in (``flow.Body``): its translator, and the names it binds."""

    tr: Translator

    def bind(self, identifier: str, value: Value) -> None: ...


def gene_loop(body: Block, node: ast.For, iteration: Iteration) -> list[ast.stmt]:
    """The loop's statements: the constant tables it zips with, its per-gene names, one update per accumulator."""
    inner = body.tr.child(iteration.bindings)
    temps: list[ast.stmt] = []
    found = contributions(inner, list(node.body), temps, Names(set(body.tr.frame.env), accumulated(node)))
    later = read_after(node, body)
    leaked = (set(iteration.bindings) | {t.targets[0].id for t in temps if isinstance(t, ast.Assign)
                                         and isinstance(t.targets[0], ast.Name)}) & later
    if leaked:
        raise Decline(node, construct(node), Reason.NOT_GENE_LOOP, f"`{sorted(leaked)[0]}` is read after it")
    out = list(iteration.preamble) + temps
    for accumulator, (op, value) in found.items():
        out.append(update(body, accumulator, op, value, iteration, node))
    return out


@dataclass(frozen=True)
class Names:
    """The names bound before the loop (those it may accumulate into) and those it accumulates into."""

    before: set[str]
    accumulated: set[str]


def accumulated(node: ast.For) -> set[str]:
    """The names the loop's body updates from their own value (``+=``, ``acc = acc + ...``, ``max(acc, ...)``)."""
    found = {n.target.id for n in ast.walk(node) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    return found | {n.targets[0].id for n in ast.walk(node) if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and accumulation(n.value, n.targets[0].id)}


def read_after(node: ast.For, body: Block) -> set[str]:
    """Names the user's function reads after the loop before binding them again."""
    function = body.tr.frame.module.functions.get(body.tr.frame.function)
    if function is None:
        return set()
    end = node.end_lineno or node.lineno
    later = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.lineno > end]
    stores: dict[str, int] = {}
    for n in later:
        if isinstance(n.ctx, ast.Store):
            stores[n.id] = min(stores.get(n.id, n.lineno), n.lineno)
    return {n.id for n in later if isinstance(n.ctx, ast.Load) and n.lineno < stores.get(n.id, n.lineno + 1)}


def contributions(tr: Translator, statements: list[ast.stmt], temps: list[ast.stmt],
                  accumulators: Names, nested: bool = False) -> Contributions:
    """What each accumulator gets from one gene, for a block of the loop's body."""
    found: Contributions = {}
    for index, statement in enumerate(statements):
        if isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], ast.Continue) \
                and not statement.orelse:  # `if t: ...; continue` then the rest: the rest runs where t is false
            rest = ast.If(statement.test, statement.body[:-1], statements[index + 1:])
            combine(found, contributions(tr, [ast.copy_location(rest, statement)], temps, accumulators, nested))
            return found
        combine(found, one(tr, statement, temps, accumulators, nested))
    return found


def one(tr: Translator, statement: ast.stmt, temps: list[ast.stmt], accumulators: Names,
        nested: bool) -> Contributions:
    """What one statement of the loop's body adds."""
    if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr) and isinstance(statement.value,
                                                                                           ast.Constant)):
        return {}
    if isinstance(statement, ast.If):
        return branches(tr, statement, temps, accumulators)
    if isinstance(statement, (ast.Break, ast.Return, ast.Continue)):
        raise Decline(statement, construct(statement), Reason.EARLY_EXIT)
    if isinstance(statement, ast.For):
        raise Decline(statement, construct(statement), Reason.NESTED)
    entry = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0] if isinstance(
        statement, ast.Assign) and len(statement.targets) == 1 else None
    if isinstance(entry, ast.Subscript) and isinstance(entry.value, ast.Name):  # its running value, in a list
        raise Decline(statement, f"`{entry.value.id}` in the loop", Reason.RECURRENCE, "an entry set in the loop")
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
            and type(statement.op) in (ast.Add, ast.Sub, ast.Mult):
        op = {ast.Add: "sum", ast.Sub: "sub", ast.Mult: "prod"}[type(statement.op)]
        return {statement.target.id: (op, added(tr, statement.value, statement.target.id, accumulators, statement))}
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0],
                                                                                         ast.Name):
        target = statement.targets[0].id
        pattern = accumulation(statement.value, target)
        if pattern is not None:
            op, operand = pattern
            return {target: (op, added(tr, operand, target, accumulators, statement))}
        if nested:
            raise Decline(statement, f"`{target}` assigned under a test in the loop", Reason.CONDITIONAL_LOOP)
        if any(isinstance(n, ast.Name) and n.id in accumulators.accumulated | {target}
               for n in ast.walk(statement.value)):
            raise Decline(statement, f"`{target}` in the loop", Reason.RECURRENCE)
        value = tr.expr(statement.value)
        temps.append(ast.Assign([ast.Name(target, ast.Store())], value.node, lineno=statement.lineno))
        tr.frame.env[target] = Binding(value.kind, name(target))
        return {}
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and not nested:
        return unpacked(tr, statement, temps, accumulators)
    raise Decline(statement, construct(statement), Reason.STATEMENT)


def unpacked(tr: Translator, statement: ast.Assign, temps: list[ast.stmt], accumulators: Names) -> Contributions:
    """``weight, value = ITEMS[i]``: names for the items of a value per gene (a constant table's row's columns)."""
    target = statement.targets[0]
    names = [e.id for e in target.elts if isinstance(e, ast.Name)] if isinstance(target, ast.Tuple) else []
    value = tr.expr(statement.value)
    if not names or len(names) != len(target.elts) or value.kind.items != len(names) or any(  # type: ignore[attr-defined]
            isinstance(n, ast.Name) and n.id in accumulators.accumulated | set(names)
            for n in ast.walk(statement.value)):
        raise Decline(statement, construct(statement), Reason.STATEMENT)
    store = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
    temps.append(ast.Assign([store], value.node, lineno=statement.lineno))
    for n in names:
        tr.frame.env[n] = Binding(value.kind.element(), name(n))
    return {}


def accumulation(value: ast.expr, target: str) -> tuple[str, ast.expr] | None:
    """(op, what is added) for ``acc + e``, ``e + acc``, ``acc - e``, ``acc * e``, ``max(acc, e)``, ``min(acc, e)``."""
    def mine(n: ast.expr) -> bool:
        return isinstance(n, ast.Name) and n.id == target
    if isinstance(value, ast.BinOp) and type(value.op) in (ast.Add, ast.Mult, ast.Sub):
        op = {ast.Add: "sum", ast.Sub: "sub", ast.Mult: "prod"}[type(value.op)]
        if mine(value.left):
            return op, value.right
        if mine(value.right) and op != "sub":
            return op, value.left
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("max", "min") \
            and len(value.args) == 2 and not value.keywords:
        if mine(value.args[0]):
            return value.func.id, value.args[1]
        if mine(value.args[1]):
            return value.func.id, value.args[0]
    return None


def added(tr: Translator, operand: ast.expr, target: str, accumulators: Names, statement: ast.stmt) -> Value:
    """What one gene adds to ``target``: it may not read an accumulator (the loop's running value)."""
    if target not in accumulators.before:
        raise Decline(statement, f"`{target}` in the loop", Reason.RECURRENCE, "not set before the loop")
    if any(isinstance(n, ast.Name) and n.id in accumulators.accumulated for n in ast.walk(operand)):
        raise Decline(statement, f"`{target}` in the loop", Reason.RECURRENCE)
    return tr.expr(operand)


def branches(tr: Translator, statement: ast.If, temps: list[ast.stmt], accumulators: Names) -> Contributions:
    """An ``if`` in the loop's body: each accumulator gets a where of what its arms add (a test that reads one reads
    the running value: a state carried from gene to gene)."""
    read = sorted({n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name)} & accumulators.accumulated)
    if read:
        raise Decline(statement, f"`{read[0]}` in the loop", Reason.RECURRENCE, "read by a test")
    test = tr.expr(statement.test)
    yes = Value(tr.condition(test), replace(test.kind, boolean=True))
    arms = [contributions(tr, list(arm), temps, accumulators, True) for arm in (statement.body, statement.orelse)]
    found: Contributions = {}
    for accumulator in dict.fromkeys([*arms[0], *arms[1]]):
        ops = {arm[accumulator][0] for arm in arms if accumulator in arm}
        if ops == {"sum", "sub"}:  # s += a in one arm, s -= b in the other: s += where(t, a, -b)
            for arm in arms:
                if arm.get(accumulator, ("", None))[0] == "sub":
                    value = arm[accumulator][1]
                    arm[accumulator] = ("sum", Value(ast.UnaryOp(ast.USub(), value.node), value.kind, value.warns))
            ops = {"sum"}
        if len(ops) > 1:
            raise Decline(statement, f"`{accumulator}` in the loop", Reason.RECURRENCE, "mixed updates")
        op = ops.pop()
        identity = Value(identity_of(tr, op), join())
        then, other = (arm[accumulator][1] if accumulator in arm else identity for arm in arms)
        if op == "sum" and is_one(then) and other is identity:
            value = Value(yes.node, join(yes.kind))  # a count: the sum of the truth values
        else:
            value = tr.where(yes.node, yes.kind, then, other, statement)
        found[accumulator] = (op, value)
    return found


def is_one(value: Value) -> bool:
    return isinstance(value.node, ast.Constant) and value.node.value == 1 and not isinstance(value.node.value, bool)


def identity_of(tr: Translator, op: str) -> ast.expr:
    """What leaves an accumulator unchanged: 0, 1, -inf, inf."""
    value = IDENTITY[REDUCE[op]]
    if value in (0, 1):
        return ast.Constant(int(value))
    return tr.sp.constant("inf") if value > 0 else ast.UnaryOp(ast.USub(), tr.sp.constant("inf"))


def combine(found: Contributions, more: Contributions) -> None:
    """Two statements' additions to the same accumulators, one after the other."""
    for accumulator, (op, value) in more.items():
        if accumulator not in found:
            found[accumulator] = (op, value)
            continue
        before, earlier = found[accumulator]
        if REDUCE[before] != REDUCE[op]:
            raise Decline(value.node, f"`{accumulator}` in the loop", Reason.RECURRENCE, "mixed updates")
        kind = join(earlier.kind, value.kind)
        if op in ("max", "min"):
            raise Decline(value.node, f"`{accumulator}` in the loop", Reason.RECURRENCE, "updated twice")
        sign = {("sum", "sum"): ast.Add(), ("sub", "sub"): ast.Add(), ("sum", "sub"): ast.Sub(),
                ("sub", "sum"): ast.Sub(), ("prod", "prod"): ast.Mult()}[(before, op)]
        found[accumulator] = (before, Value(ast.BinOp(earlier.node, sign, value.node), kind,
                                            earlier.warns or value.warns))


def update(body: Block, accumulator: str, op: str, value: Value, iteration: Iteration, node: ast.For) -> ast.stmt:
    """``acc += np.sum(..., axis=1)`` (or -=, *=, np.maximum(acc, np.max(...)), np.minimum)."""
    tr = body.tr
    reduced = REDUCE[op]
    if value.kind.genes:
        total = Value(tr.sp.reduce(reduced, value.node, 1 if value.kind.population else None),
                      replace(value.kind, genes=False, span=None, boolean=False), value.warns)
    elif reduced == "sum" and iteration.span is not None:
        total = Value(ast.BinOp(tr.length(iteration.span), ast.Mult(), value.node), value.kind, value.warns)
    else:
        raise Decline(node, f"`{accumulator}` in the loop", Reason.RECURRENCE, "the same for every gene")
    before = tr.frame.env[accumulator]
    kind = join(before.kind, total.kind)
    if reduced in ("max", "min"):
        tr.note(Topic.EMPTY, node)
        new = tr.sp.pairwise(reduced, name(accumulator), total.node, varies(Value(name(accumulator), before.kind)),
                             varies(total))
        body.bind(accumulator, Value(new, kind))
        return ast.Assign([ast.Name(accumulator, ast.Store())], new, lineno=node.lineno)
    binop = {"sum": ast.Add(), "sub": ast.Sub(), "prod": ast.Mult()}[op]
    body.bind(accumulator, Value(total.node, kind, total.warns))
    if not varies(Value(name(accumulator), before.kind)):
        return ast.AugAssign(ast.Name(accumulator, ast.Store()), binop, total.node, lineno=node.lineno)
    return ast.Assign([ast.Name(accumulator, ast.Store())], ast.BinOp(name(accumulator), binop, total.node),
                      lineno=node.lineno)
