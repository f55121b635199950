"""What happened to each source line, with the evidence that says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from inspector.model.why import Fact, Facts
from inspector.model.words import How, LineStatus, ReasonKind, Vectorized, coerce

Site = tuple[str, int]  # a place in the user's code: (its file's display name, a line)


@dataclass(frozen=True)
class Reason:
    """Why something is so: a stable ``kind`` that renderers may branch on, and the ``facts`` its words are built
    from (``inspector/render/said.py``; the JSON writes them as ``text``).

    The words of a ``not-vectorized-*`` reason say why without the words "not vectorized" (renderers show
    such reasons once, under that heading, when many lines share them).
    """

    kind: ReasonKind
    facts: Facts = None

    def __post_init__(self) -> None:
        coerce(self, "kind", ReasonKind)

    @property
    def not_vectorized(self) -> bool:
        return self.kind.startswith("not-vectorized-")


@dataclass(frozen=True)
class Overruled(Fact):
    """Inductor left a nest scalar (``reason``: why) where its machine code is vectorized."""

    reason: Reason


@dataclass(frozen=True)
class LineVerdict:
    """What happened to one source line in one compiled variant, with the evidence that says so."""

    file: str  # the file's display name (SourceFile.display)
    line: int
    end_line: int
    function: str
    via: list[Site]  # call sites, outermost first
    status: Optional[LineStatus]  # None: no evidence names it
    vectorized: Optional[Vectorized]
    kernels: list[str]  # kernel ids
    nests: list[str]  # "kernel id#nest index" of the loop nests it is placed in
    why: list[Reason]
    how: list[How]  # the evidence used
    time_s: Optional[float] = None
    time_share: Optional[float] = None

    def __post_init__(self) -> None:
        coerce(self, "status", LineStatus)
        coerce(self, "vectorized", Vectorized)
        object.__setattr__(self, "how", [How(h) for h in self.how])
