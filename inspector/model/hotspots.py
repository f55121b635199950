"""Where a program's own time went and what the experiment on its hot functions measured (``inspector run``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model.rewrites import Note
from inspector.model.timing import MachineLoad
from inspector.source import Place


@dataclass(frozen=True)
class Site(Place):
    """A line of the program that called a hot function, and the run's samples that fell in those calls."""

    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    function: str
    samples: Optional[int]


@dataclass(frozen=True)
class HotLine:
    """A line of a hot function its share of the run's samples fell at, the function not the program's it called
    that held the most of them (``into``: ``module.qualname``, a library's or Python's; ``into_share`` of the run),
    and the innermost function the most of those were in (``within``, ``within_share``: where the time itself was)."""

    line: int
    share: float
    into: Optional[str]
    into_share: Optional[float]
    within: Optional[str] = None
    within_share: Optional[float] = None


@dataclass(frozen=True)
class Captured:
    """What one round (a generation) of the program's calls gave the function: ``rows`` of the round's ``calls``
    individuals copied (``sampled``: fewer than the calls), each of ``genes`` genes of ``dtype``."""

    rows: int
    calls: int
    genes: Optional[int]
    dtype: str
    sampled: bool
    via: str  # loop | comprehension | apply_along_axis | vectorize
    site: Optional[Site]


@dataclass(frozen=True)
class ExperimentRun:
    """One run of the experiment on the captured inputs: ``per_round_s`` its time for one whole round of the program
    (measured on the copied rows, scaled by calls/rows where sampled), its rounds' lowest and highest,
    ``compile_s`` (a compiled run's first call less a steady one), ``faster`` against the function as written,
    ``pays_after`` (rounds after which its compile is paid back against the fastest eager run, None: never)."""

    id: str  # as-written | numpy | numpy-compiled-cpu | torch | torch-compiled-cpu | compiled-cpu
    dialect: str  # "" (the user's code), numpy, torch
    compiled: bool
    per_round_s: Optional[float]
    low_s: Optional[float]
    high_s: Optional[float]
    compile_s: Optional[float]
    matches: Optional[bool]  # its output against the program's own
    problem: str  # its error, or how its output differed from the program's
    faster: Optional[float]
    pays_after: Optional[float]


@dataclass(frozen=True)
class CheckFailure:
    """How a rewrite failed its check: what it raised (``error``), else the first individual whose value differed
    (``individual``: the program's value, ``expected``, and the rewrite's, ``got``)."""

    error: Optional[str]
    individual: Optional[int] = None
    expected: Optional[str] = None
    got: Optional[str] = None


@dataclass(frozen=True)
class HotRewrite:
    """inspector's rewrite of the function over the population in one dialect: its code and its check, or the
    construct it declined (``declined``: the construct, its line, why); ``notes``: how it may differ from the user's
    code (a kept gene loop, which is compiled only over few genes, among them)."""

    dialect: str
    source: str  # its imports, then the new functions whole
    call: Optional[tuple[int, str]]  # the program's line that called the function per individual, and that line
    #                                  calling the rewrite once on the population
    matched: Optional[bool]
    checked: int  # individuals it was checked on
    problem: Optional[CheckFailure]  # the JSON's words (render/said.py)
    declined: Optional[tuple[str, int, str]]
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True)
class Hotspot(Place):
    """One of the program's own functions holding much of the run's time (``share`` of the samples, ``total_s``
    that share of the wall time), what it is (``shape``: individual, population, neither, once, unknown; ``why``),
    the lines that called it, and the experiment: its ``runs`` (fastest checked first after the function as
    written), ``rounds`` (the run's rounds: those the samples fell in, a lower bound, where ``rounds_counted``; else
    estimated from its time over one round's as written), ``projected_s`` (the run with the fastest checked run
    instead: the rest unchanged), ``load`` over the experiment's rounds,
    ``run_s`` (the run ``projected_s`` starts from: its wall time less the time inspector's call hook slowed it),
    ``to_array_s`` (a population of lists made an array, one generation's: in each rewrite's ``per_round_s``)."""

    id: str
    function: str
    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    share: float
    total_s: float
    shape: str
    why: str
    callers: tuple[Site, ...]
    captured: Optional[Captured]
    rewrites: tuple[HotRewrite, ...]
    runs: tuple[ExperimentRun, ...]
    rounds: Optional[float]
    best: Optional[str]
    projected_s: Optional[float]
    experiment_why: str
    load: Optional[MachineLoad] = None  # how busy the machine was over the experiment's rounds
    run_s: Optional[float] = None
    lines: tuple[HotLine, ...] = ()  # its own lines the samples fell at, the most first
    rounds_counted: bool = False  # ``rounds`` counted from the samples, not estimated from the time
    to_array_s: Optional[float] = None
