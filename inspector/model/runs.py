"""What ran: a variant's run and everything derived from it, a program's compiled function over its run, a sweep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model.breaks import BreakCost, CompileWarning, GraphBreak, Recompilation
from inspector.model.code import CompilePhases, Graph, Kernel, ThreadScaling, TimeSplit
from inspector.model.fixes import Trial
from inspector.model.lines import LineVerdict
from inspector.model.timing import BreakEven, MachineLoad, Timing, Transfer
from inspector.model.words import STATUSES, Status, coerce


@dataclass(frozen=True)
class InternalError:
    """An exception inside inspector itself (not the user's code, not torch's compile): a bug to report."""

    where: str
    error: str
    detail: Optional[str] = None


@dataclass(frozen=True)
class Variant:
    """One variant's run and everything derived from it."""

    id: str
    function: str
    kind: str  # python | numpy | torch
    compiled: bool
    device: str
    preview: bool
    status: Status
    error: Optional[str]
    error_line: Optional[int]
    error_stage: Optional[str]  # compile | run | inspector
    error_detail: Optional[str]
    timing: Optional[Timing]
    measured_population: Optional[int]
    matches_reference: Optional[bool]
    mismatch: Optional[str]
    family: str = ""  # variants of one family compute one function: checked, and compared, within it
    checked_against: Optional[str] = None  # the variant its output was compared with
    code: dict = field(default_factory=dict)  # where its code is: {"file", "line", "name"}
    speedup_vs_python: Optional[float] = None
    speedup_vs_numpy: Optional[float] = None
    speedup_vs_python_spread: Optional[list[float]] = None  # [lowest, highest] of the rounds' ratios (timed in rounds)
    speedup_vs_numpy_spread: Optional[list[float]] = None
    break_even: Optional[BreakEven] = None
    kernels: list[Kernel] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    breaks: list[GraphBreak] = field(default_factory=list)
    break_cost: Optional[BreakCost] = None
    warnings: list[CompileWarning] = field(default_factory=list)
    lines: list[LineVerdict] = field(default_factory=list)
    time_split: Optional[TimeSplit] = None
    compile_phases: Optional[CompilePhases] = None
    recompile_count: int = 0
    recompilation: Optional[Recompilation] = None
    load: Optional[MachineLoad] = None  # while it was timed
    threads: Optional[ThreadScaling] = None
    peak_memory_bytes: Optional[int] = None  # the probe's peak resident memory while it ran this variant
    bounds: list[str] = field(default_factory=list)  # what inspector's bounds on its own cost cut short, in sentences
    run: Optional[FunctionRun] = None  # a compiled function of a program (``inspector run``), over the run
    transfer: Optional[Transfer] = None  # CUDA
    internal_errors: list[InternalError] = field(default_factory=list)
    trials: list[Trial] = field(default_factory=list)  # the fixes inspector tried on it

    def __post_init__(self):
        coerce(self, "status", Status)

    @property
    def failed(self):
        return self.status in (Status.ERROR, Status.TIMEOUT) or self.matches_reference is False

    @property
    def ok_compiled(self):
        """Compiled, and it ran (status ok)."""
        return self.compiled and self.status == Status.OK

    def line_summary(self):
        """{status: number of distinct lines with that verdict}."""
        return {s: len({e.line for e in self.lines if e.status == s}) for s in STATUSES}


@dataclass(frozen=True)
class Recompile:
    """A later call of a compiled function that compiled again, during a program's run."""

    call: int  # its number among the function's calls (1: the first)
    seconds: float  # the call's wall time, the compile included
    reasons: list[str]  # the guards that failed, in torch's words ("tensor 'pop' size mismatch at index 0 ...")
    graphs: int = 0  # graphs it compiled (0: Dynamo traced a frame again and stopped at a break, compiling none)


@dataclass(frozen=True)
class StanceRun:
    """Consecutive calls of a program's compiled function made under one ``torch.compiler.set_stance``."""

    first: int  # call numbers, inclusive
    last: int
    stance: Optional[str]  # "force_eager", "eager_on_recompile", ... (None: this torch has no stances)
    eager: Optional[bool]  # whether torch ran them without compiled code (None: could not be told)


@dataclass(frozen=True)
class FunctionRun:
    """A compiled function over a program's run (``inspector run``): its calls measured where they happened."""

    calls: int
    total_s: float  # wall time in all its calls, compiles included
    compile_s: Optional[float]  # torch's compile time over all its graphs
    steady_calls: int  # calls of compiled code that compiled nothing and ran no inspector pass
    steady_s: float  # their wall time
    recompiles: list[Recompile]  # in call order: compiles of a frame torch had compiled before
    traced_call: Optional[int]  # the call traced for the lines that ran as Python
    profiled_call: Optional[int]  # the call profiled for its kernels' times
    compiled_at: Optional[int] = None  # the call that first compiled (None: none did)
    created: Optional[str] = None  # "kmeans.py:40": where the program compiled it (told for closures)
    stances: list[StanceRun] = field(default_factory=list)  # when any call ran under a stance other than default
    eager_calls: int = 0  # calls torch ran without compiled code (a stance, before the first compile)
    eager_median_s: Optional[float] = None  # their median
    fallbacks: int = 0  # calls under eager_on_recompile that ran eagerly instead of recompiling
    fallback_guards: list[tuple] = field(default_factory=list)  # [(call, the failed guard)] of the first of them
    shares_code: list[str] = field(default_factory=list)  # other tracked functions with the same code object
    inlined_into: list[str] = field(default_factory=list)  # functions whose compiled graphs hold this one's code
    error_call: Optional[int] = None  # the call that raised the variant's ``error`` (the last that raised)


@dataclass(frozen=True)
class Program:
    """A program run unchanged under ``inspector run``."""

    argv: list[str]
    module: bool  # run as ``python -m``
    exit: int  # its exit status (inspector run exits with it)
    wall_s: Optional[float]
    ended: str  # "normally", or why inspector saw nothing of its end
    outside: Optional[dict]  # {"graphs", "breaks"} compiled outside the tracked functions
    eager: dict[str, float] = field(default_factory=dict)  # {function id: seconds per call run eagerly} (inspector.inspect)
    made_by: str = "run"  # run (inspector run), capture or inspect (the Python API)
    load: Optional[dict] = None  # how busy the machine was while it ran (the parent's /proc window; raw facts)
    try_fixes: bool = False  # say which fixes could be tried, and how (inspector run does not re-run the program)


@dataclass(frozen=True)
class SweepPoint:
    """One population size of a sweep: each variant's timing and speedups at that size."""

    population: int
    variants: list[Variant]  # without kernels or lines
