"""Fixes as values: what could make a compiled function faster where the record shows its precondition (``Fix``,
made by ``inspector.analysis.fixes.candidates``), how inspector tries one without editing the user's code
(``TrialSpec``), and what a trial measured (``TrialResult``): numbers only; ``inspector.render.fixes`` says them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.model.breaks import GraphBreak, Recompilation
from inspector.model.words import FixKind, Status, coerce
from inspector.raw import JSON

Where = tuple[Optional[str], Optional[int]]  # (a source file's display name, a line)


@dataclass(frozen=True)
class TrialSpec:
    """How the probe tries a fix (``inspector.probe.trials``): its ``name`` (the trial's, in its id: column-major,
    tiling-off, a Dynamo flag's name, dynamic-false), the population's ``layout`` ("column-major"), the ``config``
    items [KEY=VALUE] and ``compile_options`` {torch.compile keyword: value} it compiles with, and the population
    ``sizes`` it is called at afterwards, as its variant was."""

    name: str
    layout: Optional[str] = None
    config: tuple[str, ...] = ()
    compile_options: JSON = field(default_factory=dict)
    sizes: tuple[int, ...] = ()


@dataclass(frozen=True)
class SizeCompared:
    """A trial and its variant called at one further population size: their steady calls' seconds, and how many
    times each compiled again there."""

    population: int
    steady_before_s: Optional[float]
    steady_after_s: Optional[float]
    recompiles_before: int
    recompiles_after: int


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
    the other (``rounds`` 0), or for a trial called at further sizes (``sizes``) the ratio of one steady call at the
    last; ``gain``: it ran, matched the variant's output, and was at least GAIN faster (in every round): only then
    is it advice. ``alone``: compiled after torch._dynamo.reset() and timed alone (torch 2.1 shares compiled code).
    """

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

    def __post_init__(self) -> None:
        coerce(self, "status", Status)
        coerce(self, "kind", FixKind)


@dataclass(frozen=True)
class Fix:
    """One change that may make a compiled function faster, where the record shows its precondition: its ``kind``,
    the ``variant`` (or program's function) and source ``lines`` it is about, the seconds per call at stake
    (measured; None where unknown), how the probe tries it (``spec``; None: inspector cannot), the break or
    recompilation it answers (``cause``), what trying it measured (``tried``; None: not tried), and what it names
    (``detail``): the argument it changes (the strided array of a layout, the guarded number, "lr" for an
    optimizer's learning rate, the input whose size changed, with its dimension in ``axis``), or for a
    data-dependent branch's rewrite "where" when both branches are tensor expressions, else "cond"."""

    kind: FixKind
    variant: str
    lines: tuple[Where, ...]
    stake_s: Optional[float]
    spec: Optional[TrialSpec]
    cause: Union[GraphBreak, Recompilation, None] = None
    tried: Optional[TrialResult] = None
    detail: Optional[str] = None
    axis: Optional[int] = None

    def __post_init__(self) -> None:
        coerce(self, "kind", FixKind)

    @property
    def id(self) -> Optional[str]:
        """Its trial's id ("numpy-compiled-cpu~column-major"), where inspector can try it."""
        return f"{self.variant}~{self.spec.name}" if self.spec else None
