"""Pygments highlighting split into one escaped HTML string per source line."""

import html

from pygments.lexers import CppLexer, PythonLexer
from pygments.token import STANDARD_TYPES

LEXERS = {"python": PythonLexer, "cpp": CppLexer, "triton": PythonLexer}


def lines(code, language):
    """Highlighted HTML for each line of ``code`` (tokens never span lines, so lines stand alone)."""
    lexer = LEXERS.get(language, PythonLexer)(stripnl=False, ensurenl=False)
    out, current = [], []
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
    return out[:expected] + [""] * (expected - len(out))


def _css(token):
    while token not in STANDARD_TYPES:
        token = token.parent
    return STANDARD_TYPES[token]


def stylesheet(style="default"):
    from pygments.formatters import HtmlFormatter
    return HtmlFormatter(style=style).get_style_defs(".hl")
