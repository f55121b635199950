"""The user's source, one model of it for every stage (standard library only: the probe uses it too).

``Place``: a line of a file, the base of every value that names one (a traceback's or FX graph's ``Frame``, a graph
break's site, a line's verdict, a hot function, a contract's problem); ``Span``: lines of a file; ``text``: a
source file's text, the one way inspector reads it (as Python decodes it; else from linecache: a notebook cell);
``split``: its lines, numbered as Python numbers them."""

from __future__ import annotations

import io
import linecache
import tokenize
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, kw_only=True)
class Place:
    """A line of a file: ``file`` as the value's maker names it (a path in the probe's frames, a file's display name
    in the analysis; None where it is not known, or where the value says it is the sample), ``line`` from 1 (None:
    not known). Given by name, first in every value that names a line (a subclass narrows them where always known:
    ``file: str = field(kw_only=True)``)."""

    file: Optional[str]
    line: Optional[int]


@dataclass(frozen=True)
class Span:
    """Lines ``first`` to ``last`` (inclusive) of ``file``."""

    file: str
    first: int
    last: int


def text(path: str) -> Optional[str]:
    """The text of the source file at ``path`` decoded as Python decodes it (its coding line, else UTF-8; bytes it
    let pass in comments replaced), else the lines linecache holds for it (a notebook cell's, code made at run
    time); None where neither has it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return "".join(linecache.getlines(path)) or None
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:  # a coding line naming no codec Python knows
        encoding = "utf-8"
    return data.decode(encoding, "replace")


def split(source: str) -> list[str]:
    """The lines of a source's text without their ends, numbered as Python numbers them: a line ends at \\n, \\r\\n
    or \\r, never at a form feed or another of the breaks ``str.splitlines`` knows."""
    found = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return found[:-1] if found[-1] == "" else found


def lines(path: str) -> list[str]:
    """The lines of the source file at ``path``, as ``text`` reads it (``split``); [] where there is no such file."""
    return split(text(path) or "")


def line(path: str, number: int) -> str:
    """Line ``number`` (from 1) of the source file at ``path`` (``lines``); "" where there is none."""
    found = lines(path)
    return found[number - 1] if 0 < number <= len(found) else ""
