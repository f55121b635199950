"""What ran: a sample's variants, a program's compiled functions over its run, the sizes of a sweep; each built once by
one function of ``inspector.analysis`` from the record's raw facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.model.code import CompiledCode
from inspector.model.fixes import TrialResult
from inspector.model.hotspots import Hotspot
from inspector.model.timing import BreakEven, Speedups, Timing
from inspector.model.why import Guard
from inspector.model.words import NotTraced, Status, Unmeasured, coerce
from inspector.raw import JSON
from inspector.source import Place


@dataclass(frozen=True)
class InternalError:
    """An exception inside inspector itself (not the user's code, not torch's compile): a bug to report."""

    where: str
    error: str
    detail: Optional[str] = None


@dataclass(frozen=True)
class CodeLocation(Place):
    """Where a function's code is: its file (as the stacks name it), first line, name and last line (None: not
    recorded)."""

    name: Optional[str]
    end_line: Optional[int]


@dataclass(frozen=True)
class CrossCheck:
    """A variant's output against the variant it was compared with (``against``): whether it ``matches`` (None: not
    checked) and, where it does not, how (``mismatch``)."""

    against: Optional[str] = None
    matches: Optional[bool] = None
    mismatch: Optional[str] = None


@dataclass(frozen=True)
class SampleVariant:
    """One variant of a sample: what it is (``kind``: python | numpy | torch; ``family``: the variants that compute
    one function, checked and compared within it; ``location``: where its code is), how its run ended (``status``,
    and where it failed: ``error_line``, ``error_stage`` compile | run | inspector, ``error_detail``), its output
    checked, its timing and speedups, what torch.compile made of it (``code``; empty for an eager variant), the fixes
    inspector tried on it, and the probe's peak resident memory while it ran."""

    id: str
    function: str
    kind: str
    compiled: bool
    device: str
    preview: bool  # a Triton codegen preview for a CPU target: generated, never run
    family: str
    location: Optional[CodeLocation]
    status: Status
    error: Optional[str]
    error_line: Optional[int]
    error_stage: Optional[str]
    error_detail: Optional[str]
    check: CrossCheck
    timing: Optional[Timing]
    speedups: Speedups
    code: CompiledCode
    trials: tuple[TrialResult, ...]
    internal_errors: tuple[InternalError, ...]
    peak_memory_bytes: Optional[int]

    def __post_init__(self) -> None:
        coerce(self, "status", Status)

    @property
    def failed(self) -> bool:
        return self.status in (Status.ERROR, Status.TIMEOUT) or self.check.matches is False

    @property
    def ok_compiled(self) -> bool:
        """Compiled, and it ran (status ok)."""
        return self.compiled and self.status == Status.OK


@dataclass(frozen=True)
class Recompile:
    """A later call of a compiled function that compiled again, during a program's run."""

    call: int  # its number among the function's calls (1: the first)
    seconds: float  # the call's wall time, the compile included
    reasons: list[Guard]  # the guards that failed ("tensor 'pop' size mismatch at index 0 ...")
    graphs: int = 0  # graphs it compiled (0: Dynamo traced a frame again and stopped at a break, compiling none)
    compile_ids: list[str] = field(default_factory=list)  # torch's ids of what it compiled ("0/3")


@dataclass(frozen=True)
class StanceRun:
    """Consecutive calls of a program's compiled function made under one ``torch.compiler.set_stance``."""

    first: int  # call numbers, inclusive
    last: int
    stance: Optional[str]  # "force_eager", "eager_on_recompile", ... (None: this torch has no stances)
    eager: Optional[bool]  # whether torch ran them without compiled code (None: could not be told)


@dataclass(frozen=True)
class CallRun:
    """Consecutive calls of a program's compiled function that torch ran one way."""

    first: int  # call numbers, inclusive
    last: int
    kind: str  # first, recompile (compiled, then ran), limit (hit the recompile limit: ran eagerly), cached, eager,
    #            unknown
    compile_ids: list[str] = field(default_factory=list)  # what a compiling call compiled, as torch numbers it
    entry: Optional[str] = None  # the cached entry a call ran, where its guards were checked (after the limit)


@dataclass(frozen=True)
class LimitHit:
    """Where torch hit a function's recompile limit: the call, the limit ("recompile_limit = 8"), and the guard that
    failed last (torch's "last reason"), in a few words."""

    call: Optional[int]
    limit: str
    guard: Optional[Guard]


@dataclass(frozen=True)
class GaveUp:
    """Where torch gave up compiling a function's own frame (its compile left no guarded code, so every call runs
    eagerly): the line of the graph break it could not resume from (None: not found in its logs), and whether torch
    said that break was inside a loop."""

    line: Optional[int]
    in_loop: bool


@dataclass(frozen=True)
class CallKinds:
    """How torch ran a program's function's calls, from its own records (compile ids, the recompile limit, the
    guards of what it cached): {kind: calls} and their runs in call order (empty: a record from before this was
    kept), the wrappers ``torch.compile`` made of its code, where it hit its recompile limit."""

    counts: dict[str, int] = field(default_factory=dict)
    runs: list[CallRun] = field(default_factory=list)
    wrappers: int = 1
    limit: Optional[LimitHit] = None
    inside: dict[str, int] = field(default_factory=dict)  # {function id: its calls made inside that one's calls}
    gave_up: Optional[GaveUp] = None

    def calls(self, *kinds: str) -> list[int]:
        """The calls of these kinds, in order (of the runs kept)."""
        return [n for r in self.runs if r.kind in kinds for n in range(r.first, r.last + 1)]


@dataclass(frozen=True)
class Untraced:
    """A call of a program's compiled function that inspector did not trace for the lines that ran as Python."""

    call: int
    why: NotTraced
    guard: tuple[Guard, ...] = ()  # the failed guards of torch's first cached entry (why: recompile, limit)

    def __post_init__(self) -> None:
        coerce(self, "why", NotTraced)


@dataclass(frozen=True)
class UntracedCalls:
    """The calls not traced, before the one traced (or all of them, none traced): how many, the first few."""

    count: int
    first: list[Untraced]


@dataclass(frozen=True)
class UncompiledMethod:
    """A method of a compiled module other than forward, called through the compiled module: it ran uncompiled."""

    name: str
    calls: int


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
    # [(call, the failed guard)] of the first of them
    fallback_guards: list[tuple[Optional[int], Optional[str]]] = field(default_factory=list)
    shares_code: list[str] = field(default_factory=list)  # other tracked functions with the same code object
    inlined_into: list[str] = field(default_factory=list)  # functions whose compiled graphs hold this one's code
    error_call: Optional[int] = None  # the call that raised the variant's ``error`` (the last that raised)
    kinds: CallKinds = field(default_factory=CallKinds)  # how torch ran each call
    untraced: Optional[UntracedCalls] = None  # calls the trace pass left alone (None: records before it)


@dataclass(frozen=True)
class Replay:
    """Whether compiling a program's function paid in its run, from its replay after the program (``inspector run``):
    eager and compiled on copies of call ``call``'s arguments, in alternating rounds. ``why``: not measured, and why
    (the probe's words, or an Unmeasured whose words the JSON writes; the rest then None). ``saved_s`` = ``calls`` x
    (``eager_s`` - ``compiled_s``); ``pays_after`` = ``compile_s`` / (``eager_s`` - ``compiled_s``) calls (None: never,
    compiled code was not faster); ``warm``: the same with its compile on a rerun, torch's caches warm (None: not
    measured, or this run's own compile was that); ``first``: where this run found its graphs in torch's caches, the
    same with their first compile (``first_compile_s``, kept by capture when they compiled); ``needed_s``: where it was
    not measured, what each compiled call would have had to save for the compile to pay in the run (``compile_s`` /
    ``calls``)."""

    why: Optional[Union[Unmeasured, str]] = None
    call: Optional[int] = None
    eager_s: Optional[float] = None  # per call, the median of its rounds' medians
    compiled_s: Optional[float] = None
    spread: Optional[tuple[float, float]] = None  # lowest, highest of the rounds' eager / compiled ratios
    rounds: int = 0
    compile_s: Optional[float] = None  # torch's compile time of the function over the run
    calls: int = 0  # the program's calls that ran compiled code
    saved_s: Optional[float] = None  # negative: compiled code lost time
    pays_after: Optional[float] = None
    warm: Optional[BreakEven] = None
    copied_bytes: int = 0
    compiles: int = 0  # graphs the replay compiled before it was timed (its guards failed on the copies)
    first_compile_s: Optional[float] = None
    first: Optional[BreakEven] = None
    needed_s: Optional[float] = None

    @property
    def paid(self) -> Optional[bool]:
        """Whether the time compiled calls saved covered the compile (None: not measured)."""
        if self.saved_s is None or self.compile_s is None:
            return None
        return self.saved_s >= self.compile_s

    @property
    def clear(self) -> bool:
        """Every round says the same: compiled faster in all of them, or slower in all."""
        return self.spread is None or self.spread[0] > 1 or self.spread[1] < 1


@dataclass(frozen=True)
class Argument:
    """One argument of a program function's first call: its parameter's name, its type ("tensor", "ndarray",
    "float", "int", "bool", or its class's name) and, for an array, its shape and strides in elements; for a tensor
    of a subclass not torch's, its class (module and name)."""

    name: str
    type: str
    shape: Optional[tuple[int, ...]] = None
    strides: Optional[tuple[int, ...]] = None
    subclass: Optional[str] = None


@dataclass(frozen=True)
class ProgramFunction:
    """A function a program compiled with ``torch.compile`` (``inspector run``), over the program's run: what it is
    and where its code is, how its calls ended (``error``: what the last call that raised raised), its steady calls'
    timing, its calls measured where they happened (``run``), and what torch.compile made of all of its calls."""

    id: str
    function: str
    location: Optional[CodeLocation]
    device: str
    status: Status
    error: Optional[str]
    timing: Optional[Timing]  # its steady calls'
    run: FunctionRun
    code: CompiledCode
    internal_errors: tuple[InternalError, ...]
    arguments: Optional[tuple[Argument, ...]] = None  # its first call's (None: not recorded)
    compile_options: Optional[JSON] = None  # the keywords the program gave torch.compile (None: not recorded)
    uncompiled: tuple[UncompiledMethod, ...] = ()  # a compiled module's other methods, called through it
    process: Optional[str] = None  # the child process it ran in ("SpawnProcess-1"; None: the program's own)
    replay: Optional[Replay] = None  # whether compiling it paid (None: not a run's record, or not called)

    def __post_init__(self) -> None:
        coerce(self, "status", Status)

    @property
    def failed(self) -> bool:
        return self.status in (Status.ERROR, Status.TIMEOUT)


@dataclass(frozen=True)
class ChildProcess:
    """A multiprocessing child the program started: whether inspector followed it (its probe's account read; a
    forked child never is), how it ended, and the functions it compiled (ids of the program's ``functions``)."""

    name: str
    pid: Optional[int]
    start_method: str  # spawn | forkserver | fork
    exit: Optional[int]  # None: it had not ended when the program did
    followed: bool
    wall_s: Optional[float]
    functions: list[str]


@dataclass(frozen=True)
class Program:
    """A program run unchanged under ``inspector run``."""

    argv: list[str]
    module: bool  # run as ``python -m``
    exit: int  # its exit status (inspector run exits with it)
    wall_s: Optional[float]
    ended: str  # "normally", or why inspector saw nothing of its end
    outside: Optional[dict[str, int]]  # {"graphs", "breaks"} compiled outside the tracked functions
    functions: tuple[ProgramFunction, ...]  # the functions it compiled with torch.compile, as the probe tracked them
    eager: dict[str, float] = field(default_factory=dict)  # {function id: s per call run eagerly} (inspect)
    made_by: str = "run"  # run (inspector run), capture or inspect (the Python API)
    load: Optional[JSON] = None  # how busy the machine was while it ran (the parent's /proc window: the
    #                                        record's raw facts, as JSON)
    try_fixes: bool = False  # say which fixes could be tried, and how (inspector run tries none)
    children: tuple[ChildProcess, ...] = ()  # the multiprocessing children it started, in order
    hotspots: tuple[Hotspot, ...] = ()  # its own functions holding the most time, and the experiment on them


@dataclass(frozen=True)
class SweepEntry:
    """One variant at one population size of a sweep: how its run ended, its timing and speedups there."""

    id: str
    kind: str
    compiled: bool
    family: str
    status: Status
    timing: Optional[Timing]
    speedups: Speedups

    def __post_init__(self) -> None:
        coerce(self, "status", Status)


@dataclass(frozen=True)
class Crossover:
    """Where on a population sweep a family's compiled variant (the fastest compiled one at the largest size)
    overtakes the fastest eager variant at each size: ``per_call``, the smallest swept size from which it is faster
    at every size (None: not at the largest), ``before`` the swept size below it (None: faster at every size);
    ``with_compile`` and ``with_compile_before`` the same with its compile paid over ``calls`` calls."""

    compiled: str
    per_call: Optional[int]
    before: Optional[int]
    calls: int
    with_compile: Optional[int]
    with_compile_before: Optional[int]


@dataclass(frozen=True)
class SweepPoint:
    """One population size of a sweep: each variant's timing and speedups at that size."""

    population: int
    variants: tuple[SweepEntry, ...]
