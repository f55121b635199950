"""Graph breaks and their silent cousins (unrolled loops, recompilations)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from inspector.model.lines import CallSite
from inspector.model.why import BackendFailed, Guard, LibraryFix, SizeRecompile, Unrolled, UsualFix
from inspector.model.words import BreakFix, WarningKind, coerce
from inspector.source import Place

@dataclass(frozen=True)
class GraphBreak(Place):
    """A distinct graph break: where (``file``, ``line``: its site, the innermost frame outside torch and the standard
    library, its file's display name), why (torch's words), and the usual fix."""

    code: Optional[str]  # the site's source line
    where: Optional[str]  # the site's file: sample | user | library | torch (no frame of any annotated file)
    chain: list[CallSite]  # from the user's outermost line down to the site
    reason: str
    resumable: bool  # False: Dynamo could not resume after it and ran the rest of the frame eagerly
    cause: str  # a normalised cause: data-dependent-branch, item, dynamic-shape, print, unsupported, unknown
    explanation: Optional[str]
    hints: list[str]
    gb_id: Optional[str]
    url: Optional[str]
    fix: Optional[Union[BreakFix, LibraryFix]]  # the rewrite that avoids it (inside a library: what to do there)
    flag: Optional[str]  # a config flag that removes it (a fix of its own, FixKind.FLAG)
    count: int
    compile_id: Optional[str]
    mechanism: Optional[str]
    text: str
    failed_after: Optional[str] = None  # torch's why the compiler backend failed on the code after it, which ran as
    # Python (its words, inspector/render/said.py, are the JSON's ``after``)
    failed: Optional[BackendFailed] = None  # the compiler backend failed on its code: its reason (the exception) and
    # explanation (none) said from it, render/said.py: the JSON's ``reason`` and ``explanation``

    @property
    def usual(self) -> UsualFix:
        """Its rewrite and its flag (their words: render/said.py)."""
        return UsualFix(self.fix, self.flag)


@dataclass(frozen=True)
class BreakCost:
    """Seconds per call outside compiled graphs (Python between graphs, guards, conversions) and inside."""

    outside_s: float
    inside_s: float
    outside_fraction: float


@dataclass(frozen=True)
class CompileWarning:
    """A silent cousin of a graph break: an unrolled loop, a recompile, the recompile limit hit."""

    kind: WarningKind
    lines: list[int]
    graph: Optional[str]
    facts: Union[Unrolled, Recompilation, SizeRecompile]  # its words' (the JSON writes them as ``text``)

    def __post_init__(self) -> None:
        coerce(self, "kind", WarningKind)


@dataclass(frozen=True)
class Recompilation:
    """How often a compiled variant compiled again after its first call, and why."""

    count: int  # compiles after the first call
    calls: Optional[int]  # calls after the first call, when the record says
    every_call: bool
    limit: Optional[str]  # "recompile_limit = 8" when Dynamo hit it and gave up compiling
    guards: list[tuple[Guard, int]]  # (guard that failed, times), most first
    last: Optional[Guard] = None  # at the limit: the guard that failed last (torch's); its words: what it means for
    # the timings, in one sentence (the JSON writes them as ``text``)
