"""What happened to each source line, with the evidence that says so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model.why import Reason
from inspector.model.words import How, LineStatus, Vectorized, coerce
from inspector.source import Place

CallSite = tuple[str, int]  # a line of the user's code that called on: (its file's display name, a line)
EAGER = (LineStatus.EAGER, LineStatus.GRAPH_BREAK)  # a line that ran as Python, outside compiled graphs


@dataclass(frozen=True)
class FunctionSpan:
    """A function's lines: its name, its first line (its decorators included) and its last."""

    name: str
    first: int
    last: int


@dataclass(frozen=True)
class LineVerdict(Place):
    """What happened to one source line in one compiled variant (``file``: its file's display name,
    ``SourceFile.display``), with the evidence that says so."""

    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    end_line: int
    function: str
    via: list[CallSite]  # call sites, outermost first
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
