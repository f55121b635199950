"""The comparison model: runs of one sample or program compared with the first, variant by variant."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.model.analysis import Env, Sample
from inspector.model.timing import MachineLoad
from inspector.model.why import BackendFailed
from inspector.model.words import STATUSES, How, LineStatus, RunKind, Status, Vectorized, Words
from inspector.source import Place


CLEAR = 1.1  # a ratio taken once (not in rounds) nearer 1 than this says no clear change
STEADY = "time per steady call"  # a program's function's time row: the median of its steady calls


@dataclass(frozen=True)
class TimeRow:
    """One timing of two runs side by side (seconds; None: not timed under that run) and the second's speedup; from
    alternating rounds, the median of the rounds' ratios with their ``spread`` [lowest, highest] over ``rounds``."""

    what: str
    a: Optional[float]
    b: Optional[float]
    speedup: Optional[float]  # a / b: above 1, the second run is faster
    spread: Optional[tuple[float, float]] = None  # (lowest, highest)
    rounds: Optional[int] = None
    only: Optional[str] = None  # a kernel's row: the run (its label) it ran under alone (the JSON's ``what`` says so)


@dataclass(frozen=True)
class TimeGoes:
    """Where a compiled call's time went under each run: the whole call, its costliest kernels (paired), how many
    kernels are left out, and the rest of the profiled pass (all kernels, the wrapper, outside compiled graphs)."""

    call: Optional[TimeRow]
    kernels: tuple[TimeRow, ...]
    more: int
    rest: tuple[TimeRow, ...]


@dataclass(frozen=True)
class Hunk:
    """A hunk of the diff of two runs' code: ``structural`` (the normalised code differs) or ``cosmetic`` (only what
    normalisation drops differs); (first, last) line of each side's code (None: no line there); its lines, each
    "-", "+" or " " (context) first."""

    kind: str
    a: Optional[tuple[int, int]]
    b: Optional[tuple[int, int]]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class CodePair:
    """A kernel (or the wrapper's ``call()``) under two runs: its names, its hunks, and what else changed."""

    a: str
    b: str
    hunks: tuple[Hunk, ...]
    changes: tuple[str, ...] = ()  # "vectorized: no → yes", ...

    @property
    def structural_lines(self) -> list[str]:
        return [ln for h in self.hunks if h.kind == "structural" for ln in h.lines]

    @property
    def identical(self) -> bool:
        return not self.structural_lines

    @property
    def added_lines(self) -> int:
        return sum(ln[0] == "+" for ln in self.structural_lines)

    @property
    def removed_lines(self) -> int:
        return sum(ln[0] == "-" for ln in self.structural_lines)


VECTORIZED = {Vectorized.ALL: "vectorized", Vectorized.SOME: "partly vectorized", Vectorized.NONE: "not vectorized",
              Vectorized.UNKNOWN: "vectorization unknown"}  # a line verdict's vectorized, in words, best news first


@dataclass(frozen=True)
class LineVerdicts:
    """A line's verdicts in one run, all its call sites together: distinct (status, vectorized) pairs in order of
    first appearance (vectorized: a key of VECTORIZED, or None where it says nothing), and the evidence used."""

    verdicts: tuple[tuple[LineStatus, Optional[Vectorized]], ...]
    how: tuple[How, ...]

    def describe(self) -> str:
        """'parallel, vectorized / eager'."""
        return " / ".join(status + (f", {VECTORIZED[vec]}" if vec else "") for status, vec in self.verdicts)

    @property
    def rank(self) -> Optional[int]:
        """How bad the news is: the worst status, then the least vectorized; None where a status is unknown (no
        worse, no better)."""
        order = list(VECTORIZED)[:3]
        if any(status not in STATUSES or status == LineStatus.UNKNOWN for status, _ in self.verdicts):
            return None
        return max(len(order) * STATUSES.index(status) + (order.index(vec) if vec in order else 0)
                   for status, vec in self.verdicts)


@dataclass(frozen=True)
class ComparedLine(Place):
    """A source line with a verdict under either run (``file``: its file's display name, None for the sample's;
    ``line``: its number in the second run where it has one there)."""

    function: str
    text: str  # stripped, from its own file ("" where the record does not hold that file)
    a: Optional[LineVerdicts]  # None: no evidence names it under that run
    b: Optional[LineVerdicts]

    @property
    def changed(self) -> bool:
        return self.a is not None and self.b is not None and self.a.verdicts != self.b.verdicts


@dataclass(frozen=True)
class BreakChange(Place):
    """A graph break under one of two runs only: ``lost`` (only under the first) or ``gained``; ``failed``: where the
    compiler backend failed on the code after it (torch's WON'T CONVERT), what it raised."""

    change: str
    reason: str
    failed: Optional[BackendFailed] = None


@dataclass(frozen=True)
class CallsChange:
    """A program's compiled function under two runs: its calls, steady calls and recompiles, and what it raised
    ((call, the error's first line), or None); each a pair: (under a, under b)."""

    calls: tuple[int, int]
    steady_calls: tuple[int, int]
    recompiles: tuple[int, int]
    raised: tuple[Optional[tuple[Optional[int], str]], Optional[tuple[Optional[int], str]]]


@dataclass(frozen=True)
class ComparedVariant:
    """One variant (a program's compiled function) under two runs; the compiled fields are empty for an eager one.

    ``change``: faster, slower, "no clear change" or unknown (compare.change); ``control``: the id of the eager
    variant whose change of time reads this compiled one's (None: none ran under both)."""

    id: str
    family: str
    function: str
    kind: str
    compiled: bool
    status: tuple[Status, Status]  # (under a, under b)
    errors: tuple[Optional[str], Optional[str]]
    timing: tuple[TimeRow, ...]  # the time row first
    change: str
    run: Optional[CallsChange] = None
    control: Optional[str] = None
    kernels: tuple[CodePair, ...] = ()
    removed: tuple[str, ...] = ()  # kernel names only under the first run
    added: tuple[str, ...] = ()
    time_goes: Optional[TimeGoes] = None
    lines: tuple[ComparedLine, ...] = ()  # in line order
    breaks: tuple[BreakChange, ...] = ()
    cache: Optional[tuple[str, str]] = None  # Inductor's FX graph cache outcomes, where they differ
    wrapper: Optional[CodePair] = None

    @property
    def ok(self) -> bool:
        """It ran under both."""
        return self.status == (Status.OK, Status.OK)

    @property
    def time(self) -> Optional[TimeRow]:
        """Its time row (a program's function: its time per steady call), or None."""
        return self.timing[0] if self.timing and self.timing[0].what in ("time", STEADY) else None

    @property
    def changed_lines(self) -> list[ComparedLine]:
        return [e for e in self.lines if e.changed]

    @property
    def one_sided(self) -> list[ComparedLine]:
        return [e for e in self.lines if not (e.a and e.b)]

    @property
    def same_lines(self) -> list[ComparedLine]:
        return [e for e in self.lines if e.a and e.b and not e.changed]


@dataclass(frozen=True)
class Confounder:
    """What differs between two runs besides torch's version (compare.CONFOUNDERS): its ``key``, its name
    (``what``), each run's value; what it changes is said by the renderers (the JSON's ``text``)."""

    key: str
    what: str
    a: str
    b: str


@dataclass(frozen=True)
class Populations:
    """The runs timed different populations."""

    a: Optional[int]
    b: Optional[int]


@dataclass(frozen=True)
class SourceChanged:
    """The sample's (``kind``: a program's runs, the program's) source changed between the runs: lines are matched by
    their text."""

    kind: RunKind


@dataclass(frozen=True)
class TimedApart:
    """A sample's runs timed one after the other, not in alternating rounds."""


@dataclass(frozen=True)
class TimedBusy:
    """A run (its label) that timed these variants on a busy machine."""

    run: str
    variants: tuple[str, ...]


@dataclass(frozen=True)
class Sequential:
    """A program's runs, one after the other, with each run's machine load (None: not measured)."""

    a: str
    b: str
    load_a: Optional[MachineLoad]
    load_b: Optional[MachineLoad]


@dataclass(frozen=True)
class ArgvChanged:
    """A program that ran with different arguments."""

    a: tuple[str, ...]
    b: tuple[str, ...]


@dataclass(frozen=True)
class ExitChanged:
    """A program that exited with different statuses under the runs (their labels)."""

    a: str
    b: str
    exit_a: Optional[int]
    exit_b: Optional[int]


@dataclass(frozen=True)
class ComparedCandidate:
    """One run of a hot function's experiment (the function as written, a rewrite, compiled or not) under two runs:
    ``time`` its time per generation under each (its speedup: above 1, faster under the second run), ``faster`` its
    speedup over the function as written under each run, ``matches`` whether its output matched the program's own
    under each (None: not checked, or not run there), ``change`` which way its time went (compare.change)."""

    id: str  # as-written | numpy | numpy-compiled-cpu | torch | torch-compiled-cpu | compiled-cpu | numba ...
    compiled: bool
    time: TimeRow
    faster: tuple[Optional[float], Optional[float]]
    matches: tuple[Optional[bool], Optional[bool]]
    change: str


@dataclass(frozen=True)
class ComparedHotspot(Place):
    """A hot function of a program under two runs, matched by its name and file (its ``id``, ``file``, ``line`` and
    ``shape`` the second run's where it was found there): its ``share`` of each run's samples and the seconds that
    share is of the run (None: not hot in that run), its experiment's fastest checked run under each (``best``), and
    its ``candidates`` side by side, the function as written first."""

    id: str
    function: str
    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    shape: str
    share: tuple[Optional[float], Optional[float]]
    total_s: tuple[Optional[float], Optional[float]]
    best: tuple[Optional[str], Optional[str]]
    candidates: tuple[ComparedCandidate, ...]


PairWarning = Union[Confounder, Populations, SourceChanged, TimedApart, TimedBusy, Sequential, ArgvChanged,
                    ExitChanged]


@dataclass(frozen=True)
class RunPair:
    """The baseline and one other run of a comparison (labels ``a`` and ``b``), variant by variant."""

    a: str
    b: str
    warnings: tuple[PairWarning, ...]  # the confounders first; said by the renderers (the JSON's sentences)
    confounders: tuple[Confounder, ...]
    variants: tuple[ComparedVariant, ...]
    kind: RunKind  # of the runs compared
    interleaved: bool  # timed in alternating rounds
    only_a: tuple[str, ...]  # variant ids
    only_b: tuple[str, ...]
    hotspots: tuple[ComparedHotspot, ...] = ()  # a program's hot functions with their experiment's candidates


@dataclass(frozen=True)
class ComparedRun:
    """One run of a comparison: its label and what it ran with; ``record`` and ``report``: its record as given and
    its HTML report's path from the comparison's folder (None where not made)."""

    label: str
    env: Env
    build: str
    config: tuple[str, ...]  # KEY=VALUE
    population: Optional[int]  # None: a program's run
    created: str
    argv: Optional[list[str]]  # a program's arguments
    load: Optional[MachineLoad]  # a program's machine load (None: not measured, or a sample's run); the JSON's
    # ``load`` is a program's in words
    record: Optional[str] = None
    report: Optional[str] = None


@dataclass(frozen=True)
class Comparison:
    """Runs of one sample or program compared with the first (the baseline): one RunPair per other run."""

    sample: Sample
    kind: RunKind
    runs: tuple[ComparedRun, ...]
    pairs: tuple[RunPair, ...]


class RegressionKind(Words):
    """What got worse in a compared variant (``compare.regressions``)."""

    STATUS = "status"  # it ran under the baseline and does not now
    LINE = "line"  # a line verdict further down STATUSES, or less vectorized
    BREAK = "break"  # a graph break gained
    RAISED = "raised"  # a program's function raises now
    RECOMPILES = "recompiles"  # a program's function recompiles more
    TIME = "time"  # a compiled variant or function slower than the bound
    RERUN = "rerun"  # a compiled variant's compile on a rerun, torch's caches warm, slower (compare.RERUN_SLOWER)
    CANDIDATE = "candidate"  # a hot function's candidate: compiled and slower than the bound, or its output no
    #                          longer matches the program's


@dataclass(frozen=True)
class Regression:
    """What got worse in one compared variant (a program's function) from the baseline, run ``a``, to run ``b``, by
    ``compare.regressions``' rules; ``render.comparison.regression`` says it in words. ``kind`` says which fields
    hold: STATUS the ``status`` it ended with under ``b``, and its ``error``; LINE the ``line`` (its verdicts under
    each run); BREAK the ``graph_break`` gained; RAISED the ``call`` that raised and the ``error``'s first line;
    RECOMPILES the ``recompiles`` (under a, under b); TIME its ``time`` row (the speedup under ``b``, below 1, and
    the rounds' spread); RERUN its compile on a rerun's ``time`` row; CANDIDATE the hot function's (``variant`` its
    id) ``candidate``."""

    a: str
    b: str
    variant: str
    function: str
    kind: RegressionKind
    status: Optional[Status] = None
    error: Optional[str] = None
    line: Optional[ComparedLine] = None
    graph_break: Optional[BreakChange] = None
    call: Optional[int] = None
    recompiles: Optional[tuple[int, int]] = None
    time: Optional[TimeRow] = None
    candidate: Optional[ComparedCandidate] = None

    @property
    def place(self) -> Optional[Place]:
        """Where in the code: the line, or the break's site; None for the variant as a whole."""
        return self.line or self.graph_break
