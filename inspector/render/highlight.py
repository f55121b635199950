"""Pygments highlighting split into one escaped HTML string per source line."""

from __future__ import annotations

import functools
import html

from pygments.formatter import Formatter
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import CppLexer, DiffLexer, PythonLexer
from pygments.token import STANDARD_TYPES, _TokenType

LEXERS: dict[str, type[Lexer]] = {"python": PythonLexer, "cpp": CppLexer, "triton": PythonLexer, "diff": DiffLexer}


def lines(code: str, language: str) -> list[str]:
    """Highlighted HTML for each line of ``code`` (tokens never span lines, so lines stand alone)."""
    return list(_lines(code, language))


@functools.lru_cache(maxsize=256)
def _lines(code: str, language: str) -> tuple[str, ...]:
    """``lines``, once per code and language: a page shows a kernel's code and a source file in several places."""
    lexer = LEXERS.get(language, PythonLexer)(stripnl=False, ensurenl=False)
    out: list[str] = []
    current: list[str] = []
    for token, value in lexer.get_tokens(code):
        css = _css(token)
        for i, piece in enumerate(value.split("\n")):
            if i:
                out.append("".join(current))
                current = []
            if piece:
                text = html.escape(piece)
                current.append(f'<span class="{css}">{text}</span>' if css else text)
    out.append("".join(current))
    expected = code.count("\n") + 1
    return tuple(out[:expected] + [""] * (expected - len(out)))


def _css(token: _TokenType) -> str:
    while token not in STANDARD_TYPES and token.parent is not None:
        token = token.parent
    return STANDARD_TYPES.get(token, "")


def stylesheet(style: str = "default") -> str:
    """The CSS of a pygments style, for the ``.hl`` class."""
    formatter: Formatter[str] = HtmlFormatter(style=style)  # the stubs type the base class's method
    return formatter.get_style_defs(".hl")
