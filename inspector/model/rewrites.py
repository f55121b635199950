"""Rewrites inspector wrote for the user (``inspector.rewrite``), as the record keeps them and as the probe ran them:
what was written (``Rewritten``), what its check found (``RewriteCheck``), and each way it ran (``RewriteRun``:
eager, compiled, under numba), with its figures against the variant it replaces and the family's fastest variant
the user wrote. Numbers and the rewriter's own words (its enums' values) only; ``inspector.render.rewrites`` says
them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from inspector.model.fixes import Where
from inspector.model.timing import Timing
from inspector.model.words import Status, coerce
from inspector.source import Place

AS_WRITTEN = "as-written"  # the trial of the Python variant's own function under numba (no rewrite)


@dataclass(frozen=True)
class Arm:
    """One arm of a branch of the user's code (``taken``: its test was true), and how many evaluations took it."""

    function: str
    line: int
    code: str
    taken: bool
    count: int


@dataclass(frozen=True)
class Drawn:
    """How a check drew its individuals from a population of ``population``: ``sample`` spread evenly over it, then
    ``witnesses`` more, found among the ``looked_at`` others the user's code then ran on, in order: each took an arm
    of a branch none before it took (or made the user's code raise)."""

    population: int
    sample: int
    witnesses: int
    looked_at: int


@dataclass(frozen=True)
class RewriteCheck:
    """The rewrite against the user's code on ``evaluations`` individuals (or calls): ``matched``, else the first
    mismatching individual (``individual``, the user's value or what it raised, the rewrite's, how many differ), or
    what the rewrite raised (``error``); the arms of the user's branches and how often each was taken."""

    target: str  # the user's function
    entry: str  # the rewrite's
    matched: bool
    unit: str  # individuals | calls
    evaluations: int
    rtol: float
    individual: Optional[int]
    expected: Optional[str]
    got: Optional[str]
    raised: bool  # the user's code raised for that individual
    differing: int
    error: Optional[str]
    arms: tuple[Arm, ...]
    population_dtype: str
    result_dtype: Optional[str]
    drawn: Optional[Drawn] = None

    @property
    def unchecked(self) -> tuple[Arm, ...]:
        """The arms no evaluation took: the check says nothing of them."""
        return tuple(a for a in self.arms if a.count == 0)


@dataclass(frozen=True)
class Declined(Place):
    """A construct the rewriter left as it was: what (``construct``: while, print, ...), where, and why
    (``reason``: the rewriter's Reason's value; ``detail``: a name or value it is about)."""

    construct: str
    code: str
    reason: str
    detail: str


@dataclass(frozen=True)
class Note:
    """How the rewrite may differ from the user's code at a line (``topic``: the rewriter's Topic's value)."""

    topic: str
    line: Optional[int]
    code: str


@dataclass(frozen=True)
class RewriteRun:
    """The rewrite run one way (``how``: eager | compiled | numba, on the CPU): how it ended, its output against
    the variant it replaces, its Timing, and ``speedup`` (the replaced variant's time over its own, side by side in
    the rounds: ``spread`` the lowest and highest of ``rounds`` ratios), ``vs_fastest`` (the family's fastest variant
    the user wrote, ``fastest``, over it) and ``vs`` (each of the user's variants' time over its own: {id: ratio})."""

    id: str
    how: str
    status: Status
    error: Optional[str]
    matches: Optional[bool]
    mismatch: Optional[str]
    timing: Optional[Timing]
    speedup: Optional[float]
    spread: Optional[tuple[float, float]]
    rounds: int
    fastest: Optional[str]
    vs_fastest: Optional[float]
    vs: dict[str, float]

    def __post_init__(self) -> None:
        coerce(self, "status", Status)

    @property
    def ok(self) -> bool:
        return self.status == Status.OK and self.matches is not False


@dataclass(frozen=True)
class Rewritten:
    """What inspector wrote for one variant (``variant``, the user's ``function``): a per-individual function over
    the whole population (``kind`` vectorized) or a NumPy/torch variant with its breaks rewritten (``breaks``), in
    ``dialect``; the new functions whole (``source``), the diff against the user's lines, the ``lines`` it replaces
    (a break's rewrite: those it changes),
    its ``changes`` (the rewriter's ChangeKind values), how it may differ (``notes``), what it declined (no
    ``source``: nothing was rewritten), its check and each way it ran."""

    id: str
    variant: str
    function: str
    family: str
    kind: str
    dialect: str
    source: Optional[str]
    diff: Optional[str]
    lines: tuple[Where, ...]
    changes: tuple[str, ...]
    notes: tuple[Note, ...]
    declined: tuple[Declined, ...]
    check: Optional[RewriteCheck]
    runs: tuple[RewriteRun, ...]

    @property
    def failed(self) -> bool:
        """Written, and its check (or a run's output) failed: never advice."""
        return bool(self.source) and ((self.check is not None and not self.check.matched)
                                      or any(r.matches is False for r in self.runs))

    @property
    def advice(self) -> bool:
        """Written, checked and matched, and it ran: advice."""
        return bool(self.source and self.check and self.check.matched and not self.failed
                    and any(r.ok for r in self.runs))
