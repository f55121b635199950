"""Fixes as values: what could make a compiled function faster where the record shows its precondition (``Fix``,
made by ``inspector.analysis.fixes.candidates``), how inspector tries one without editing the user's code
(``TrialSpec``), and what a trial measured (``TrialResult``): numbers only; ``inspector.render.fixes`` says them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.model.breaks import GraphBreak, Recompilation
from inspector.model.words import FixKind, Status, coerce
from inspector.raw import JSON
from inspector.source import Place

Where = tuple[Optional[str], Optional[int]]  # (a source file's display name, a line)


@dataclass(frozen=True)
class TrialSpec:
    """How the probe tries a fix (``inspector.probe.trials``): its ``name`` (the trial's, in its id: column-major,
    tiling-off, a Dynamo flag's name, dynamic-false, dynamic-true), the population's ``layout`` ("column-major"),
    the ``config`` items [KEY=VALUE] and ``compile_options`` {torch.compile keyword: value} it compiles with, and the
    population ``sizes`` it is called at afterwards, as its variant was."""

    name: str
    layout: Optional[str] = None
    config: tuple[str, ...] = ()
    compile_options: JSON = field(default_factory=dict)
    sizes: tuple[int, ...] = ()


@dataclass(frozen=True)
class SizeCompared:
    """A trial and its variant called at one further population size: their steady calls' seconds, how many times
    each compiled again there, and their first calls' seconds (a recompile's, where it compiled again)."""

    population: int
    steady_before_s: Optional[float]
    steady_after_s: Optional[float]
    recompiles_before: int
    recompiles_after: int
    first_before_s: Optional[float] = None
    first_after_s: Optional[float] = None
    steady_calls: int = 1  # the steady calls each side's median is of (the fewer)


@dataclass(frozen=True)
class TrialEffect:
    """What a fix changed in its variant's compiled code: the lines that were not and now are vectorized or parallel,
    its graph breaks before and after, and the lines whose breaks went away."""

    vectorized_now: tuple[Where, ...]
    parallel_now: tuple[Where, ...]
    breaks_before: int
    breaks_after: int
    gone: tuple[int, ...]


@dataclass(frozen=True)
class TrialResult:
    """A fix inspector tried on one compiled variant without editing the user's code, and what it measured.

    ``speedup``: the variant's time over the trial's, the median of their side-by-side ratios over ``rounds``
    alternating rounds (``spread``: the lowest and highest of them), else the ratio of their medians timed one after
    the other (``rounds`` 0), or for a trial called at further sizes (``sizes``) the ratio of their steady calls at
    the last (``own_speedup``: the rounds' at the variant's own size; ``covers_calls``: how many of its slower calls
    there the compile time it saved over the sizes pays for, where it compiled fewer times; ``first_calls_s``: its
    variant's first calls at the sizes and its own, each summed, where all were timed); ``gain``: it ran,
    matched the variant's output, and was at least GAIN faster (in every round); a size trial: GAIN faster at the
    last size, or compiled fewer times over the sizes and not GAIN slower there, and not GAIN slower at the variant's
    own size. Only then is it advice. ``alone``: compiled after torch._dynamo.reset() and timed alone (torch 2.1
    shares compiled code)."""

    id: str
    variant: str  # the variant it changed
    kind: FixKind
    spec: TrialSpec
    status: Status  # ok | error
    error: Optional[str]
    matches: Optional[bool]  # its output against the variant's
    mismatch: Optional[str]
    speedup: Optional[float]
    spread: Optional[tuple[float, float]]
    rounds: int
    median_before_s: Optional[float]
    median_after_s: Optional[float]
    effect: TrialEffect
    gain: bool
    alone: bool
    sizes: tuple[SizeCompared, ...]
    own_speedup: Optional[float] = None
    covers_calls: Optional[float] = None
    first_calls_s: Optional[tuple[float, float]] = None

    def __post_init__(self) -> None:
        coerce(self, "status", Status)
        coerce(self, "kind", FixKind)


@dataclass(frozen=True)
class Fix:
    """One change that may make a compiled function faster, where the record shows its precondition: its ``kind``,
    the ``variant`` (or program's function) and source ``lines`` it is about, the seconds per call at stake
    (measured; None where unknown), how the probe tries it (``spec``; None: inspector cannot), the break or
    recompilation it answers (``cause``), what trying it measured (``tried``; None: not tried), torch's ``hints`` that
    name another change (a break's rewrite), and what it names
    (``detail``): the argument it changes (the strided array of a layout, the guarded number, "lr" for an
    optimizer's learning rate, the input whose size changed, with its dimension in ``axis``), or for a
    data-dependent branch's rewrite "where" when both branches are tensor expressions, else "cond"; for a break
    inside a library at the only call of the function (``LibraryFix.whole``), ``eager_faster``: how many times as
    fast the function ran eagerly as compiled (its family's eager variant of its kind, or the program's replay;
    None where not measured)."""

    kind: FixKind
    variant: str
    lines: tuple[Where, ...]
    stake_s: Optional[float]
    spec: Optional[TrialSpec]
    cause: Union[GraphBreak, Recompilation, None] = None
    tried: Optional[TrialResult] = None
    detail: Optional[str] = None
    axis: Optional[int] = None
    hints: tuple[str, ...] = ()  # a break's rewrite: torch's own hints that name another change to make
    eager_faster: Optional[float] = None

    def __post_init__(self) -> None:
        coerce(self, "kind", FixKind)

    @property
    def id(self) -> Optional[str]:
        """Its trial's id ("numpy-compiled-cpu~column-major"), where inspector can try it."""
        return f"{self.variant}~{self.spec.name}" if self.spec else None


@dataclass(frozen=True)
class LineRef(Place):
    """A source line a change is about (``file``: its file's display name), in the variant whose section shows it."""

    variant: str


@dataclass(frozen=True)
class ChangeAt:
    """One variant a change applies to: its fix there (the time at stake, what trying it measured), and for a
    break's rewrite whether the flag that removes the break was tried on it (``flag_tried``)."""

    fix: Fix
    flag_tried: bool

    @property
    def variant(self) -> str:
        return self.fix.variant

    @property
    def gain(self) -> Optional[bool]:
        """Tried: whether it measured a gain (False: not advice there); None: not tried."""
        return self.fix.tried.gain if self.fix.tried else None


@dataclass(frozen=True)
class Change:
    """One thing to change, once however many variants it applies to (fixes of one kind naming the same thing): the
    source lines of every variant it applies to, and per variant its fix (``at``: the most time at stake first);
    ``advice``: trying it measured a gain on a variant, or, never tried, it is advised on its precondition (else it
    was tried and gained nowhere: ``at`` holds only the variants it was tried on)."""

    lines: tuple[LineRef, ...]
    at: tuple[ChangeAt, ...]
    advice: bool

    @property
    def fix(self) -> Fix:
        """The fix the change is said as (the one with the most time at stake)."""
        return self.at[0].fix

    @property
    def stake_s(self) -> Optional[float]:
        return self.fix.stake_s
