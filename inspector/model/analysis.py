"""Everything derived from one record: what every renderer reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Optional, Union

from inspector.model.breaks import BreakCost, CompileWarning, GraphBreak, Recompilation
from inspector.model.code import Graph
from inspector.model.fixes import Change, Fix, TrialResult
from inspector.model.rewrites import Rewritten
from inspector.model.runs import Crossover, InternalError, Program, ProgramFunction, SampleVariant, SweepPoint
from inspector.model.timing import MachineLoad, Rounds
from inspector.model.why import Problem
from inspector.model.words import RunKind, Status, coerce
from inspector.raw import JSON
from inspector.source import split


@dataclass(frozen=True)
class Ignored:
    """A name of the sample that looks like a variant's but is not one, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Sample:
    path: str  # as the user gave it
    file: Optional[str]  # the absolute path the probe loaded
    title: str
    description: str
    population: Optional[int]  # None: a program's run
    default_population: Optional[int]
    seed: Optional[int]
    shape: list[int]
    dtype: Optional[str]
    source: str
    tolerance: Optional[float] = None  # the relative tolerance of the cross-check, when the sample sets one
    ignored: list[Ignored] = field(default_factory=list)  # named like a variant, not run


@dataclass(frozen=True)
class SourceFile:
    """A file whose lines a report annotates: the sample, a user module, or a library (collapsed by default)."""

    path: str  # as the stacks name it
    display: str  # as the report names it
    kind: str  # sample | user | library | stdlib (a library of the standard library)
    source: str

    def text(self, line: int) -> str:
        """The stripped text of ``line`` (1-based), or ""."""
        lines = split(self.source)
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""


@dataclass(frozen=True)
class Bandwidth:
    gb_s: float
    bytes: int
    machine: str
    method: str
    measured: str
    cached: bool = False


@dataclass(frozen=True)
class Env:
    python: Optional[str]
    torch: Optional[str]
    numpy: Optional[str]
    threads: Optional[int]
    cuda: Optional[str]  # device name, or None
    cpu: Optional[str]
    isa: Optional[str]
    platform: Optional[str]
    executable: Optional[str]
    cpu_count: Optional[int]
    memory_bandwidth: Optional[Bandwidth]
    min_chunk_size: Optional[int] = None  # Inductor's cpp.min_chunk_size: fewer elements per thread stay serial
    stdlib: Optional[str] = None  # the probe interpreter's standard library folder
    torch_dir: Optional[str] = None  # torch's package folder: its frames are never annotated
    inspector_dir: Optional[str] = None
    inductor_cache_dir: Optional[str] = None  # where Inductor writes the Python modules it generates
    loadavg: Optional[float] = None  # the 1-minute load average before any variant ran (None: unknown)
    numba: Optional[str] = None  # numba's version where the probe's interpreter can import it

    MACHINE = ("cpu", "isa", "threads", "cuda")  # what must agree for timings to compare


@dataclass(frozen=True)
class ParseCount:
    """How much of one kind of torch output a parser read, and what it did not understand."""

    artifact: str  # output code, graph-break messages, log records
    read: int
    problems: list[Problem]  # one per item at most; their words, one line each, are the JSON's (render/said.py)


@dataclass(frozen=True)
class Trace:
    """torch's structured trace of the run's compiles, for tlparse: its folder (beside the record) and its logs."""

    dir: Optional[str]
    logs: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    """One compiled variant's graph breaks and warnings, with their cost (the breaks view)."""

    variant: str
    status: Status
    error: Optional[str]
    graphs: tuple[Graph, ...]
    cost: Optional[BreakCost]
    breaks: tuple[GraphBreak, ...]
    warnings: tuple[CompileWarning, ...]
    recompilation: Optional[Recompilation]
    tried: tuple[TrialResult, ...]  # the fixes inspector tried on it
    bounds: tuple[str, ...]  # what inspector's bounds on its own cost cut short

    def __post_init__(self) -> None:
        coerce(self, "status", Status)


@dataclass(frozen=True)
class BreaksView:
    """What ``inspector breaks`` shows: per compiled variant its findings, with the flags it tried."""

    sample: str
    torch: Optional[str]
    population: int
    variants: tuple[Finding, ...]
    rewrites: tuple[Rewritten, ...] = ()  # each break's rewrite inspector wrote, checked and timed (or declined)


@dataclass(frozen=True)
class RecordInfo:
    """The record a run's analysis was made from: its schema, the inspector that made it, and when."""

    schema: str
    inspector: str
    created: str


@dataclass(frozen=True)
class RunEnd:
    """How the run went: interrupted (Ctrl-C: what was measured is kept), and how often its probe restarted."""

    interrupted: bool
    probe_restarts: int


@dataclass(frozen=True)
class Headline:
    """The facts of one family's headline: its fastest timed variant (by how much, against NumPy), its fastest eager
    (NumPy or torch, else Python) and compiled variants, the run of inspector's rewrite faster than every variant
    the user wrote (``beaten``: (rewrite id, run id)), its distinct graph breaks and recompiles, and on a population
    sweep where its compiled variant overtakes eager (``crossover``; None without a sweep)."""

    family: str
    fastest: str  # variant id
    time_s: float  # its time for the whole population (the table's)
    vs_numpy: Optional[float]  # NumPy's time over it
    eager: Optional[str]
    eager_s: Optional[float]
    vs_eager: Optional[float]  # that eager variant's time over the fastest's (1 when it is the fastest)
    compiled: Optional[str]
    compiled_s: Optional[float]
    beaten: Optional[tuple[str, str]]
    breaks: int  # distinct (file, line) over its compiled variants
    recompiles: int
    crossover: Optional[Crossover]

    @property
    def compiled_vs_eager(self) -> Optional[float]:
        """The fastest eager variant's time over the fastest compiled variant's (None without both)."""
        return self.eager_s / self.compiled_s if self.eager_s and self.compiled_s else None


@dataclass(frozen=True)
class Analysis:
    """What every run's analysis holds, a sample's (``SampleAnalysis``) or a program's (``ProgramAnalysis``): what
    ran (its record, the sample, the files), where and with which torch (``env``), what the parsers did not
    understand, inspector's own errors."""

    record: RecordInfo
    sample: Sample
    env: Env
    files: list[SourceFile]  # the sample first, then the user's modules, then libraries
    config: list[JSON]  # [{"key", "value"}]
    compile_options: JSON  # torch.compile's keywords the run used
    reference: Optional[str]
    end: RunEnd
    trace: Optional[Trace]
    parse: list[ParseCount]
    internal_errors: list[InternalError]  # every one of the run
    load: Optional[MachineLoad]  # the machine over all of the run's timing windows

    @property
    def interrupted(self) -> bool:
        return self.end.interrupted

    @property
    def probe_restarts(self) -> int:
        return self.end.probe_restarts

    def file(self, display: str) -> Optional[SourceFile]:
        return next((f for f in self.files if f.display == display), None)

    @property
    def not_understood(self) -> int:
        return sum(len(p.problems) for p in self.parse)


@dataclass(frozen=True)
class SampleAnalysis(Analysis):
    """A sample's run (``inspector report``, ``breaks``): its variants, the sizes of a sweep, the breaks view's
    findings, the alternating rounds, inspector's rewrites, every fix that applies (``fixes``: each with what trying
    it measured) and what to change (``changes``), and each family's headline."""

    KIND: ClassVar[RunKind] = RunKind.SAMPLE
    variants: tuple[SampleVariant, ...]
    sweep: tuple[SweepPoint, ...]
    findings: tuple[Finding, ...]  # costliest first
    rounds: Optional[Rounds]  # the alternating rounds, when it was timed in them
    rewrites: tuple[Rewritten, ...]  # what inspector wrote for the variants, checked and timed
    fixes: tuple[Fix, ...]  # every fix whose precondition the record shows, in the rules' order
    changes: tuple[Change, ...]  # the fixes that are advice or were tried, one per change, most at stake first
    headlines: tuple[Headline, ...]  # per family that timed a variant, in the order the families appear

    def variant(self, vid: str) -> SampleVariant:
        return next(v for v in self.variants if v.id == vid)

    @property
    def failed(self) -> list[SampleVariant]:
        return [v for v in self.variants if v.failed]


@dataclass(frozen=True)
class ProgramAnalysis(Analysis):
    """A program's run (``inspector run``, ``inspector.inspect``): the program and its compiled functions, every fix
    that applies to them, and those it could try (``could_try``: not measured, none when the run did not ask)."""

    KIND: ClassVar[RunKind] = RunKind.PROGRAM
    program: Program
    fixes: tuple[Fix, ...]
    could_try: tuple[Fix, ...]  # per function in the program's order, by PROGRAM_ORDER

    def function(self, fid: str) -> ProgramFunction:
        """A program's compiled function."""
        return next(f for f in self.program.functions if f.id == fid)


RunAnalysis = Union[SampleAnalysis, ProgramAnalysis]  # what analyze returns: a sample's run's or a program's
