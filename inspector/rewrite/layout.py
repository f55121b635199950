"""A rewrite's functions laid out as a person writes them: a statement longer than the line split at its outermost
call's arguments, sum's terms or list's items, one per line (the user's own text kept where ``emit`` keeps it)."""

from __future__ import annotations

import ast

from inspector.rewrite.emit import kept, precedence, unparse
from inspector.rewrite.program import Module

WIDTH = 110
ARITH = 13  # the unparser's precedence of + and -


class Layout:
    """Lays out statements of ``module``'s functions, keeping the text of the user's nodes in ``keep``."""

    def __init__(self, module: Module, keep: set[int]) -> None:
        self.module = module
        self.keep = keep

    def text(self, node: ast.AST) -> str:
        return kept(node, self.module, self.keep)

    def function(self, function: ast.FunctionDef) -> str:
        """The function's source; ``emit.unparse`` wherever the layout would not parse back to the same tree."""
        head = f"def {function.name}({self.text(function.args)}):"
        text = "\n".join([head, *self.block(function.body, "    ")]) + "\n"
        try:
            same = ast.dump(ast.parse(text)) == ast.dump(ast.parse(ast.unparse(function)))
        except SyntaxError:
            same = False
        return text if same else unparse(function, self.module, self.keep) + "\n"

    def block(self, statements: list[ast.stmt], pad: str) -> list[str]:
        return [line for s in statements for line in self.statement(s, pad)]

    def statement(self, statement: ast.stmt, pad: str) -> list[str]:
        """One statement's lines, indented by ``pad`` (a loop's or an ``if``'s with their blocks)."""
        if isinstance(statement, (ast.For, ast.If)):
            first = self.text(type(statement)(**{**vars(statement), "body": [ast.Pass()], "orelse": []}))
            lines = [pad + first.splitlines()[0], *self.block(statement.body, pad + "    ")]
            if statement.orelse:
                lines += [pad + "else:", *self.block(statement.orelse, pad + "    ")]
            return lines
        value = getattr(statement, "value", None)
        if not isinstance(statement, (ast.Return, ast.Assign, ast.AugAssign)) or not isinstance(value, ast.expr):
            return [pad + line for line in self.text(statement).splitlines()]
        holder = ast.Name("__value__", ast.Load())
        prefix = self.text(type(statement)(**{**vars(statement), "value": holder})).replace("__value__", "")
        if isinstance(statement, ast.Assign) and isinstance(value, ast.Tuple) and value.elts:
            flat = ", ".join(self.text(e) for e in value.elts)
            if len(pad + prefix + flat) <= WIDTH:
                return [pad + prefix + flat]
        lines = self.lines(value, WIDTH - len(pad + prefix))
        return [pad + prefix + lines[0], *(pad + line for line in lines[1:])]

    def lines(self, node: ast.expr, width: int) -> list[str]:
        """``node`` on as many lines as it needs to fit ``width`` (where it can be split)."""
        text = self.text(node)
        if len(text) <= width:
            return [text]
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and \
                node.args[0].elts:  # np.stack([ ...one per line... ], axis=1)
            display = node.args[0]
            rest = [self.text(a) for a in node.args[1:]] + [f"{k.arg}={self.text(k.value)}" for k in node.keywords]
            opening, closing = ("[", "]") if isinstance(display, ast.List) else ("(", ")")
            items = [self.lines(e, width - 4) for e in display.elts]
            return [self.text(node.func) + "(" + opening, *joined(items, ","),
                    closing + "".join(f", {r}" for r in rest) + ")"]
        if isinstance(node, ast.Call) and (node.args or node.keywords):
            parts = [self.lines(a, width - 4) for a in node.args] + [
                [f"{k.arg}={first}", *rest] for k in node.keywords if k.arg
                for first, *rest in [self.lines(k.value, width - 4 - len(k.arg) - 1)]]
            return [self.text(node.func) + "(", *joined(parts, ")")]
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            opening, closing = ("[", "]") if isinstance(node, ast.List) else ("(", ")")
            return [opening, *joined([self.lines(e, width - 4) for e in node.elts], closing)]
        terms = chain(node)
        if len(terms) == 2 and isinstance(terms[1][1], ast.Call):  # a + f(...): f's arguments split
            head = f"{self.term(terms[0][1], first=True)} {terms[1][0]} "
            tail = self.lines(terms[1][1], width - len(head))
            return [head + tail[0], *tail[1:]]
        if len(terms) > 2:
            out = ["(" + self.term(terms[0][1], first=True)]
            out += [f"    {op} {self.term(term, first=False)}" for op, term in terms[1:]]
            return out[:-1] + [out[-1] + ")"]
        return [text]

    def term(self, node: ast.expr, first: bool) -> str:
        """A term of a sum, parenthesized where it binds as loosely as + (or, after the first, as tightly)."""
        text = self.text(node)
        loose = precedence(node) < ARITH or (not first and precedence(node) == ARITH)
        return f"({text})" if loose else text


def joined(parts: list[list[str]], closing: str) -> list[str]:
    """Items one after another, indented, with commas between and ``closing`` after the last."""
    out: list[str] = []
    for index, part in enumerate(parts):
        end = closing if index == len(parts) - 1 else ","
        out += ["    " + line for line in part[:-1]] + ["    " + part[-1] + end]
    return out


def chain(node: ast.expr) -> list[tuple[str, ast.expr]]:
    """The terms of ``a + b - c`` with their signs ("+" for the first)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return chain(node.left) + [("+" if isinstance(node.op, ast.Add) else "-", node.right)]
    return [("+", node)]
