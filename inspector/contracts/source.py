"""A Python source as contracts and moved lines see it: its statements, functions and comments.

A statement is named by its code (its lines joined, stripped, comments removed) and its scope (the innermost function
it is in), never by its number alone: ``locate`` finds the statement of one source in another by its label, else by
that code (``A line that moved is followed by its label or its code``).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass

from inspector.source import split

MARK = re.compile(r"#\s*inspector:(.*)$")
LABEL = re.compile(r"(?:^|\s)label=([\w.-]+)")


@dataclass(frozen=True)
class Statement:
    """A simple statement, or the header of a compound one (``if ...:``, a ``def`` with its decorators)."""

    first: int
    last: int
    column: int  # 1-based
    scope: str  # the innermost function it is in ("" at module level)
    code: str


@dataclass(frozen=True)
class Function:
    name: str  # as defined (a method: its own name)
    header: Statement  # its decorators and its def line(s)
    last: int  # its body's last line
    line: int  # its def keyword's line and column
    column: int


@dataclass(frozen=True)
class Source:
    """A parsed source: ``code`` the stripped code of each line (comments removed), ``marks`` the text after
    ``# inspector:`` on each line that has one."""

    code: tuple[str, ...]
    marks: dict[int, str]
    statements: tuple[Statement, ...]
    functions: tuple[Function, ...]

    def statement_at(self, line: int) -> Statement | None:
        """The innermost statement whose lines hold ``line``."""
        holding = [s for s in self.statements if s.first <= line <= s.last]
        return max(holding, key=lambda s: (s.first, -s.last), default=None)

    def function_at(self, line: int) -> Function | None:
        """The function whose header (decorators and def) holds ``line``."""
        return next((f for f in self.functions if f.header.first <= line <= f.header.last), None)

    def functions_named(self, name: str) -> list[Function]:
        return [f for f in self.functions if f.name == name.rsplit(".", 1)[-1]]

    def body(self, function: Function) -> list[Statement]:
        """The statements inside ``function`` (nested functions' too)."""
        return [s for s in self.statements if function.header.last < s.first <= function.last]

    def label_of(self, statement: Statement) -> str | None:
        """The label marking ``statement`` (a mark on one of its lines), if any."""
        return next((name for name, lines in self.labels.items() if statement.first in lines), None)

    @functools.cached_property
    def labels(self) -> dict[str, list[int]]:
        """{label: first lines of the statements marked ``label=NAME``}."""
        found: dict[str, list[int]] = {}
        for line, text in self.marks.items():
            statement = self.statement_at(line)
            for name in LABEL.findall(text):
                found.setdefault(name, []).append(statement.first if statement else line)
        return found


@functools.lru_cache(maxsize=64)
def read(text: str) -> Source:
    """The Source of ``text`` (SyntaxError when it is not Python)."""
    tree = ast.parse(text)
    lines = split(text)
    comments = _comments(text)
    code = tuple((line[:comments[n][0]] if n in comments else line).strip() for n, line in enumerate(lines, 1))
    marks = {n: found.group(1).strip() for n, (_, comment) in comments.items() if (found := MARK.search(comment))}
    statements: list[Statement] = []
    functions: list[Function] = []
    _walk(tree.body, "", code, statements, functions)
    return Source(code, marks, tuple(statements), tuple(functions))


def _comments(text: str) -> dict[int, tuple[int, str]]:
    """{line: (column where its comment starts, the comment)}."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = (token.start[1], token.string)
    return found


def _walk(body: list[ast.stmt], scope: str, code: tuple[str, ...], statements: list[Statement],
          functions: list[Function]) -> None:
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        inner = [b for b in (getattr(node, name, None) for name in ("body", "orelse", "finalbody")) if b]
        inner += [h.body for h in getattr(node, "handlers", [])] + [c.body for c in getattr(node, "cases", [])]
        starts = [b[0].lineno for b in inner if isinstance(b, list) and b and isinstance(b[0], ast.stmt)]
        last = min(starts) - 1 if starts else (node.end_lineno or node.lineno)
        while last > node.lineno and not code[last - 1]:  # a header ends at its last line of code, not at a comment
            last -= 1
        statement = Statement(first, last, node.col_offset + 1, scope, " ".join(c for c in code[first - 1:last] if c))
        statements.append(statement)
        inside = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(Function(node.name, statement, node.end_lineno or last, node.lineno,
                                      node.col_offset + 1))
            inside = node.name
        for block in inner:
            if isinstance(block, list):
                _walk([b for b in block if isinstance(b, ast.stmt)], inside, code, statements, functions)


def locate(statement: Statement, label: str | None, mine: Source, theirs: Source) -> int | str:
    """The first line in ``theirs`` of the statement of ``mine`` (found by ``label``, else by its code, told apart by
    its scope where the code repeats), or why it cannot be said."""
    if mine.code == theirs.code:
        return statement.first
    if label and len(theirs.labels.get(label, [])) == 1:
        return theirs.labels[label][0]
    same = [s for s in theirs.statements if s.code == statement.code]
    if len(same) > 1:
        same = [s for s in same if s.scope == statement.scope] or same
    if len(same) == 1:
        return same[0].first
    if not same:
        return "the recorded source has no such line (the code changed since the record was made)"
    return (f"its code is on lines {', '.join(str(s.first) for s in same)} of the recorded source: "
            "give it a label (# inspector: label=NAME) to tell them apart")
