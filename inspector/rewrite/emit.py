"""Writing a rewrite as source: the user's own text for every expression the rewrite left as it was (``x**2`` stays
``x**2``), ``ast.unparse`` for the rest; and the unified diff against the user's lines."""

from __future__ import annotations

import ast
import copy
import difflib
import re
from collections.abc import Callable, Iterable

from inspector.rewrite.program import Module

_Unparser = getattr(ast, "_Unparser", None)  # CPython's unparser (3.9+): its precedence rules are reused
_Precedence = getattr(ast, "_Precedence", None)


def precedence(node: ast.expr) -> int:
    """How tightly ``node`` binds, in the unparser's scale (0, the loosest, without ``ast._Unparser``)."""
    if _Unparser is None or _Precedence is None:
        return 0
    if isinstance(node, ast.BinOp):
        return int(_Unparser.binop_precedence[_Unparser.binop[type(node.op).__name__]])
    if isinstance(node, ast.UnaryOp):
        return int(_Unparser.unop_precedence[_Unparser.unop[type(node.op).__name__]])
    if isinstance(node, ast.BoolOp):
        return int(_Unparser.boolop_precedence[_Unparser.boolops[type(node.op).__name__]])
    levels = {ast.Compare: "CMP", ast.IfExp: "TEST", ast.Lambda: "TEST", ast.NamedExpr: "NAMED_EXPR",
              ast.Await: "AWAIT", ast.Tuple: "TUPLE", ast.Yield: "YIELD", ast.YieldFrom: "YIELD"}
    return int(getattr(_Precedence, levels.get(type(node), "ATOM")))


class _Keeping(_Unparser if _Unparser is not None else object):  # type: ignore[misc]
    """An unparser that writes the user's text for the user's own nodes (single-line ones)."""

    def __init__(self, module: Module, originals: set[int]) -> None:
        super().__init__()
        self._module = module
        self._originals = originals

    def traverse(self, node: ast.AST | list[ast.AST]) -> None:
        if isinstance(node, ast.expr) and id(node) in self._originals and not isinstance(node, ast.Tuple):
            text = self._module.segment(node)
            if text and "\n" not in text:
                wanted = int(self._precedences.get(node, _Precedence.TEST)) if _Precedence else 0
                self.write(f"({text})" if precedence(node) < wanted else text)
                return
        super().traverse(node)

    def visit_Call(self, node: ast.Call) -> None:
        """``sum(x for x in y)``: a generator expression as the only argument takes the call's parentheses."""
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            gen = node.args[0]
            assert _Precedence is not None
            self.set_precedence(_Precedence.ATOM, node.func)
            self.traverse(node.func)
            text = self._module.segment(gen) if id(gen) in self._originals else ""
            if text.startswith("(") and "\n" not in text:
                self.write(text)
                return
            self.write("(")
            self.traverse(gen.elt)
            for generator in gen.generators:
                self.traverse(generator)
            self.write(")")
            return
        super().visit_Call(node)


def kept(node: ast.AST, module: Module, keep: set[int]) -> str:
    """``node`` as source with the user's text for the nodes in ``keep`` (plain ``ast.unparse`` on an
    interpreter without ``ast._Unparser``)."""
    if _Unparser is None:
        return ast.unparse(node)
    text: str = _Keeping(module, keep).visit(node)
    return text


def originals(functions: Iterable[ast.AST]) -> set[int]:
    """The ids of every node of the user's functions (a rewrite reuses those it leaves as they were)."""
    return {id(n) for f in functions for n in ast.walk(f)}


def unparse(node: ast.AST, module: Module, keep: set[int]) -> str:
    """``node`` as source, the user's text where ``keep`` holds its id; plain ``ast.unparse`` when the result
    would not parse back to the same tree (or the interpreter has no ``ast._Unparser``)."""
    plain = ast.unparse(node)
    text = kept(node, module, keep)
    try:
        same = ast.dump(ast.parse(text)) == ast.dump(ast.parse(plain))
    except SyntaxError:
        same = False
    return text if same else plain


def function(name: str, args: ast.arguments, body: list[ast.stmt]) -> ast.FunctionDef:
    """A function definition (with the fields this Python version wants)."""
    fields: dict[str, object] = {"name": name, "args": args, "body": body,
                                 "decorator_list": [], "returns": None, "lineno": 1}
    if "type_params" in ast.FunctionDef._fields:
        fields["type_params"] = []
    return ast.FunctionDef(**fields)  # type: ignore[arg-type]


HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@(.*)$")


def diff(old: str, new: str, path: str, first: int = 1) -> str:
    """A unified diff of ``old`` (the user's lines from ``first``) against ``new``."""
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="",
                                      n=3))
    if first != 1 and len(lines) > 2:
        lines = lines[:2] + [_shifted(line, first - 1) for line in lines[2:]]
    return "\n".join(lines) + ("\n" if lines else "")


def _shifted(line: str, by: int) -> str:
    """A hunk header moved ``by`` lines down on both sides: the user's lines started there, and the rewrite takes
    their place."""
    found = HUNK.match(line)
    if not found:
        return line
    old, old_count, new, new_count, tail = found.groups()
    return f"@@ -{int(old) + by}{old_count or ''} +{int(new) + by}{new_count or ''} @@{tail}"


def substitute(node: ast.AST, replace: Callable[[ast.AST], ast.AST | None]) -> ast.AST:
    """``node`` with ``replace``'s replacements (it returns the new node for a node it replaces, else None): the
    subtrees left as they were are the user's own objects (their text is kept), the others copies; the user's tree
    is never changed."""
    new = replace(node)
    if new is not None:
        return new
    changed: dict[str, object] = {}
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            item = substitute(value, replace)
            if item is not value:
                changed[field] = item
        elif isinstance(value, list):
            items = [substitute(v, replace) if isinstance(v, ast.AST) else v for v in value]
            if any(a is not b for a, b in zip(items, value)):
                changed[field] = items
    if not changed:
        return node
    twin = copy.copy(node)
    for field, value in changed.items():
        setattr(twin, field, value)
    return twin
