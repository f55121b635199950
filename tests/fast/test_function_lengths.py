"""No function of the package is over 60 lines (issue 29): a function that long does several things; split it.

A function's lines run from its ``def`` to its last line (decorators left out, its signature and docstring in).
"""

import ast

from conftest import ROOT

MAX_LINES = 60
ALLOWED: set[str] = set()  # functions still over MAX_LINES, while they are being split (none now)


def long_functions(top=ROOT / "inspector"):
    """{"path:qualified name": lines} of every function over MAX_LINES under ``top``."""
    found = {}
    for path in sorted(top.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        found.update({f"{where}:{name}": lines for name, lines in _functions(ast.parse(path.read_text("utf-8")))
                      if lines > MAX_LINES})
    return found


def _functions(node, prefix=""):
    """(qualified name, lines) of each function inside ``node``, nested ones and methods included."""
    for child in ast.iter_child_nodes(node):
        name = f"{prefix}{getattr(child, 'name', '')}"
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield name, child.end_lineno - child.lineno + 1
        yield from _functions(child, f"{name}." if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.ClassDef)) else prefix)


def test_no_function_is_over_60_lines():
    over = {f: n for f, n in long_functions().items() if f not in ALLOWED}
    assert not over, "over 60 lines (split them): " + ", ".join(f"{f} ({n})" for f, n in over.items())


def test_the_allowlist_names_only_functions_still_too_long():
    assert not ALLOWED - long_functions().keys(), "under 60 lines now: remove them from ALLOWED"
