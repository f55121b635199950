"""The branches of the user's functions (each ``if``, conditional expression and comprehension ``if``), and the
same functions instrumented to count which arms each evaluation took: the check's evidence of what it compared."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable

from inspector.rewrite.model import Branch
from inspector.rewrite.program import Module

HIT = "__inspector_branch__"  # the name the instrumented functions call: HIT(branch id, test) -> test


def tests(function: ast.FunctionDef) -> list[ast.expr]:
    """The branch tests of ``function``, in source order."""
    found: list[ast.expr] = []
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            found.append(node.test)
        elif isinstance(node, ast.comprehension):
            found += node.ifs
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def branches(functions: Iterable[tuple[Module, ast.FunctionDef]]) -> tuple[Branch, ...]:
    """Every branch of ``functions``, numbered in order."""
    found: list[Branch] = []
    for module, function in functions:
        for test in tests(function):
            found.append(Branch(len(found), function.name, test.lineno, module.segment(test)))
    return tuple(found)


class _Instrument(ast.NodeTransformer):
    """Wraps each branch test in ``HIT(id, test)``, numbering as ``branches`` does."""

    def __init__(self, numbers: dict[tuple[int, int], int]) -> None:
        self.numbers = numbers

    def wrap(self, test: ast.expr) -> ast.expr:
        number = self.numbers.get((test.lineno, test.col_offset))
        if number is None:
            return test
        return ast.copy_location(ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(number), test], []), test)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        node = super().generic_visit(node)
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            node.test = self.wrap(node.test)
        elif isinstance(node, ast.comprehension):
            node.ifs = [self.wrap(t) for t in node.ifs]
        return node


def instrumented(functions: list[tuple[Module, ast.FunctionDef]], first: int = 0) -> list[
        tuple[Module, ast.FunctionDef]]:
    """Copies of ``functions`` whose branch tests report to ``HIT`` (ids from ``first``, as ``branches``)."""
    out = []
    number = first
    for module, function in functions:
        numbers = {}
        for test in tests(function):
            numbers[(test.lineno, test.col_offset)] = number
            number += 1
        out.append((module, _Instrument(numbers).visit(copy.deepcopy(function))))
    return out


class Arms:
    """What one evaluation took: ``hit`` records an arm (the test's truth) and returns the test unchanged;
    ``close`` counts the evaluation's arms once each."""

    def __init__(self, count: int) -> None:
        self.counts = {(b, t): 0 for b in range(count) for t in (True, False)}
        self.taken: set[tuple[int, bool]] = set()

    def hit(self, number: int, test: object) -> object:
        self.taken.add((number, bool(test)))
        return test

    def close(self) -> None:
        for arm in self.taken:
            self.counts[arm] = self.counts.get(arm, 0) + 1
        self.taken = set()

    def reset(self) -> None:
        """Count from nothing again."""
        self.counts = dict.fromkeys(self.counts, 0)
        self.taken = set()


def install(functions: list[tuple[Module, ast.FunctionDef]], namespaces: Callable[[Module], dict[str, object]],
            arms: Arms) -> None:
    """Define the instrumented ``functions`` in their modules' namespaces (copies the caller owns), each calling
    ``arms.hit``."""
    for module, function in functions:
        namespace = namespaces(module)
        namespace[HIT] = arms.hit
        code = compile(ast.fix_missing_locations(ast.Module([function], [])), module.path, "exec")
        exec(code, namespace)  # the user's own function, instrumented, in a copy of its namespace
