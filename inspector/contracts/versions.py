"""Torch version ranges of contracts (``torch = ">=2.5,<2.14"``, ``torch>=2.2`` in a comment).

A small comparator rather than ``packaging``, which none of inspector's own dependencies requires (only pytest, in the
test extra): clauses joined by commas, each an operator (``>=``, ``<=``, ``>``, ``<``, ``==``, ``!=``) and a version of
dot-separated numbers; ``==2.13.*`` and ``!=2.13.*`` match a prefix. A version compares by its release numbers alone:
a local build (``+cpu``) and a pre-release or dev suffix are dropped (``2.6.0a0`` counts as ``2.6.0``), and a shorter
release is padded with zeros (``2.5`` is ``2.5.0``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

OPS: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq, "!=": operator.ne}
CLAUSE = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)(\.\*)?\s*")
RELEASE = re.compile(r"\d+(?:\.\d+)*")


class RangeError(ValueError):
    """A range that cannot be read; its text says why, in a few words."""


@dataclass(frozen=True)
class Clause:
    op: str
    release: tuple[int, ...]
    prefix: bool  # ``==2.13.*``: the release's first numbers

    def admits(self, version: tuple[int, ...]) -> bool:
        if self.prefix:
            same = version[:len(self.release)] == self.release
            return same if self.op == "==" else not same
        width = max(len(version), len(self.release))
        return OPS[self.op](_padded(version, width), _padded(self.release, width))


@dataclass(frozen=True)
class Range:
    """The versions every clause admits; ``text`` as written."""

    text: str
    clauses: tuple[Clause, ...]

    def __contains__(self, version: object) -> bool:
        found = release(str(version))
        return found is not None and all(c.admits(found) for c in self.clauses)


def parse_range(text: str) -> Range:
    """The Range of ``text`` (RangeError when a clause is not an operator and a version)."""
    clauses = []
    for part in text.split(","):
        found = CLAUSE.fullmatch(part)
        if not found:
            raise RangeError(f"{part.strip() or '(empty)'!r} is not an operator (>=, <=, >, <, ==, !=) and a version")
        op, numbers, star = found.groups()
        if star and op not in ("==", "!="):
            raise RangeError(f"{part.strip()!r}: a version ending in .* takes == or !=")
        clauses.append(Clause(op, tuple(int(n) for n in numbers.split(".")), bool(star)))
    return Range(text.strip(), tuple(clauses))


def release(version: str) -> tuple[int, ...] | None:
    """The release numbers a version starts with (``2.13.0+cpu`` → (2, 13, 0)), or None when it has none."""
    found = RELEASE.match(version.strip())
    return tuple(int(n) for n in found.group(0).split(".")) if found else None


def shown(version: str) -> str:
    """A torch version as verdicts say it: its release (``2.13.0+cpu`` → 2.13.0), or as it is without one."""
    found = release(version)
    return ".".join(map(str, found)) if found else version


def _padded(numbers: tuple[int, ...], width: int) -> tuple[int, ...]:
    return numbers + (0,) * (width - len(numbers))
