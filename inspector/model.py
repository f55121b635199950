"""The typed values analysis derives from a record, and that every renderer reads.

No torch here, and no JSON but at the boundary: ``to_json`` turns any of these into plain data (the JSON
renderer's output, versioned as FORMAT). Values are frozen: a later step makes a new value with
``dataclasses.replace`` instead of changing what an earlier step produced. The closed sets of words (a run's status,
a kernel's backend, a line's verdict, a reason's kind, the evidence used) are string-valued enums: a member equals,
hashes and prints as its value, so the JSON and the templates read the words.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

FORMAT = "inspector.analysis/1"  # the JSON renderer's output (docs/record.md, "The analysis")


class Words(str, Enum):
    """A string-valued enum whose members print as their values (``enum.StrEnum`` from Python 3.11)."""

    __str__ = str.__str__
    __format__ = str.__format__


class Status(Words):
    """How a variant's (or a trial's) run ended."""

    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"
    TIMEOUT = "timeout"


class Backend(Words):
    """What made a kernel: Inductor's C++ or Triton code generation, or a library call (``extern``)."""

    CPP = "cpp"
    TRITON = "triton"
    EXTERN = "extern"


class LineStatus(Words):
    """A line verdict's status, best news first."""

    PARALLEL = "parallel"
    EXTERN = "extern"
    UNKNOWN = "unknown"
    SERIAL = "serial"
    EAGER = "eager"
    GRAPH_BREAK = "graph-break"


STATUSES = tuple(LineStatus)


class Vectorized(Words):
    """A line verdict's vectorized: all, some or none of its C++ units (``n/a``: no CPU notion, such as Triton)."""

    ALL = "all"
    SOME = "some"
    NONE = "none"
    UNKNOWN = "unknown"
    NA = "n/a"


class How(Words):
    """The evidence that placed a line (``inspector/analysis/lines.py``), best first."""

    LOOP_NEST = "loop_nest"
    PROVENANCE = "provenance"
    ORIGIN = "origin"
    FX_GRAPH = "fx_graph"
    PYTHON_TRACE = "python_trace"
    GRAPH_BREAK = "graph_break"


class ReasonKind(Words):
    """A Reason's kind: the set renderers may branch on."""

    PARALLEL = "parallel"
    PARALLEL_PAID = "parallel-paid"
    PARALLEL_DID_NOT_PAY = "parallel-did-not-pay"
    SERIAL = "serial"
    EAGER = "eager"
    GRAPH_BREAK = "graph-break"
    LIBRARY_CALL = "library-call"
    GENERATED_AROUND = "generated-around"
    NEST_UNKNOWN = "nest-unknown"
    SPLIT_NESTS = "split-nests"
    NO_EVIDENCE = "no-evidence"
    NOT_FUSED = "not-fused"
    TRITON_LOADS = "triton-loads"
    INDUCTOR_SCALAR = "inductor-scalar"
    LANE_BY_LANE = "lane-by-lane"
    GATHERED = "gathered"
    UNROLLED_LOOP = "unrolled-loop"
    MACHINE_CODE = "machine-code"
    MACHINE_DISAGREES = "machine-disagrees"
    MACHINE_LANE = "machine-lane"
    FIX = "fix"
    TRIED = "tried"
    NOT_VECTORIZED_STRIDED = "not-vectorized-strided"
    NOT_VECTORIZED_NO_LOOP = "not-vectorized-no-loop"
    NOT_VECTORIZED_DTYPE = "not-vectorized-dtype"
    NOT_VECTORIZED_SMALL = "not-vectorized-small"
    NOT_VECTORIZED_NO_INDEX = "not-vectorized-no-index"
    NOT_VECTORIZED_NO_ISA = "not-vectorized-no-isa"
    NOT_VECTORIZED_CHECKER = "not-vectorized-checker"
    NOT_VECTORIZED_TAIL = "not-vectorized-tail"
    NOT_VECTORIZED_UNRECORDED = "not-vectorized-unrecorded"


def _as(value, name, kind):
    """Set the field ``name`` of a frozen dataclass ``value`` to its ``kind`` member (None stays None): the words a
    constructor was given are checked against the closed set."""
    word = getattr(value, name)
    object.__setattr__(value, name, None if word is None else kind(word))


@dataclass(frozen=True)
class Reason:
    """Why something is so: a stable ``kind`` that renderers may branch on, and ``text`` for people.

    The text of a ``not-vectorized-*`` reason says why without the words "not vectorized" (renderers show
    such reasons once, under that heading, when many lines share them).
    """

    kind: ReasonKind
    text: str

    def __post_init__(self):
        _as(self, "kind", ReasonKind)

    @property
    def not_vectorized(self):
        return self.kind.startswith("not-vectorized-")


@dataclass(frozen=True)
class Evidence:
    """A line of a kernel's code that shows one of its properties (``what``: "OpenMP parallel region", ...)."""

    line: int
    what: str


@dataclass(frozen=True)
class Launch:
    """One launch of a kernel from the wrapper's ``call()``: its position among the graph's launches, in the order
    they run; the subgraph function that makes it (a ``torch.cond`` branch, a ``while_loop``'s condition or body), and
    how often it runs per graph call: None once, ``loop`` once per iteration of a loop (how many: the data decides; the
    profiled pass counts them), ``branch`` only when its branch is taken."""

    position: int
    subgraph: Optional[str] = None
    repeat: Optional[str] = None


@dataclass(frozen=True)
class Tiling:
    """Inductor's SIMD tiling decision for a loop nest, as the probe recorded it where Inductor made it.

    ``branch``: ``tiled`` (vectorized), ``non-contiguous`` (the tiling heuristic: too many non-contiguous index
    operations), ``small-inner-range`` (a short inner loop with few ops), ``dtype`` (a dtype with no vector form),
    ``no-tiling-index`` (no loop index could be tiled), ``no-vector-isa``, ``no-loop``, ``checker`` (torch 2.1's
    vectorization checker turned SIMD off: ``message``). Limits are the numbers Inductor compared against (None where
    they were not found in that torch's source).
    """

    branch: str
    factor: Optional[int] = None  # lanes of a float vector on this CPU
    dtypes: tuple = ()
    not_vectorizable: tuple = ()
    ops: Optional[int] = None
    non_contiguous: tuple = ()  # ((op kind, count), ...): load, store, index_expr, value_expr
    mask_ops: Optional[int] = None
    heuristics: Optional[bool] = None  # cpp.enable_tiling_heuristics
    loop_tail_vec: Optional[bool] = None  # cpp.enable_loop_tail_vec
    ranges: tuple = ()
    count_limit: Optional[float] = None
    ratio_limit: Optional[float] = None
    small_fraction: Optional[float] = None
    small_ops: Optional[float] = None
    message: Optional[str] = None

    @property
    def non_contiguous_count(self):
        return sum(n for _, n in self.non_contiguous)


@dataclass(frozen=True)
class ParallelChoice:
    """Inductor's parallel-depth decision for a loop nest (``decide_parallel_depth``): the loop levels it made OpenMP
    loops of, from the work (elements of all levels), the threads and ``cpp.min_chunk_size``."""

    work: Optional[int]
    threads: int
    min_chunk_size: int
    dynamic_threads: bool
    depth: int
    levels: tuple


@dataclass(frozen=True)
class Gather:
    """An input a vector loop reads one element at a time into a buffer (or an output it writes so)."""

    buffer: str
    index: str
    store: bool
    lanes: Optional[int]


@dataclass(frozen=True)
class Decisions:
    """What Inductor decided for one loop nest, recorded where it decided it (``None`` fields: not recorded under
    that torch, with why in ``unrecorded``)."""

    tiling: tuple = ()  # (Tiling, ...): one per kernel proxy the nest holds
    parallel: tuple = ()  # (ParallelChoice, ...)
    gathers: tuple = ()  # (Gather, ...), distinct
    lane_ops: tuple = ()  # ((op, times generated), ...): ops with no vector form, run lane by lane
    tail_vectorized: Optional[bool] = None  # the remainder after the vector loop (None: no vector loop, or unknown)
    unrecorded: tuple = ()  # ((decision kind, why), ...) that this torch could not record


@dataclass(frozen=True)
class MachineCode:
    """What the C++ compiler made of a kernel, or of the functions that hold one of its loop nests: instruction counts
    of the shared object Inductor loaded (``objdump``; the classes are ``inspector/probe/machine.py``'s).

    ``simd``: ``packed`` (packed SIMD arithmetic, at least a quarter as much as scalar arithmetic, or a call to
    vectorized math), ``mixed`` (some packed arithmetic among much more scalar: a few operations combined, not
    decided either way), ``scalar`` (neither, and no register wider than xmm), ``moves`` (SIMD data moves on ymm/zmm
    registers only: not decided either way).
    """

    PACKED_SHARE = 0.25  # packed arithmetic against scalar arithmetic, from which the code counts as vectorized

    functions: tuple  # what was counted: symbols (kernel, kernel._omp_fn.N), or a nest's "lines A-B" (line table)
    instructions: int
    packed_fp: int  # packed floating-point arithmetic, compares, conversions (vaddpd, vfmadd231pd, vcmppd)
    scalar_fp: int  # scalar ones (vaddsd, vmulss, vucomisd)
    packed_int: int  # packed integer arithmetic and compares (vpaddq, vpcmpeqd)
    simd_data: int  # SIMD moves, shuffles, blends and logic
    gathers: int
    register: Optional[str]  # the widest SIMD register used: zmm, ymm or xmm
    vector_math: tuple[tuple[str, int], ...]  # (vectorized math function, calls): Sleef
    scalar_math: tuple[tuple[str, int], ...]  # (libm function, calls): one element per call
    unclassified: tuple[tuple[str, int], ...]  # (mnemonic, count): in no class, counted, not guessed

    @property
    def simd(self):
        packed = self.packed_fp + self.packed_int
        if self.vector_math or (packed and packed >= self.PACKED_SHARE * self.scalar_fp):
            return "packed"
        if packed:
            return "mixed"
        return "moves" if self.register in ("ymm", "zmm") else "scalar"

    @property
    def decides(self):
        """Whether it says by itself whether the code is vectorized (packed or scalar only)."""
        return self.simd in ("packed", "scalar")

    def overrules(self, vectorized):
        """Whether it says the opposite of Inductor's code (``vectorized``: that code is ``at::vec``)."""
        return self.decides and (self.simd == "packed") != bool(vectorized)

    def describe(self):
        """'packed SIMD (zmm): 24 packed FP, 6 scalar FP; calls Sleef_cosd8_u10 x2' and the like."""
        head = {"packed": f"packed SIMD ({self.register})", "scalar": "scalar only",
                "mixed": f"some packed SIMD ({self.register})",
                "moves": f"no packed arithmetic, SIMD moves on {self.register}"}[self.simd]
        counts = [f"{n} {what}" for n, what in ((self.packed_fp, "packed FP"), (self.packed_int, "packed int"),
                                                (self.scalar_fp, "scalar FP"), (self.gathers, "gathers")) if n]
        calls = [f"{name} x{n}" for name, n in self.vector_math + self.scalar_math]
        return f"{head}: {', '.join(counts) or 'no FP arithmetic'}" + (f"; calls {', '.join(calls)}" if calls else "")


@dataclass(frozen=True)
class LoopNest:
    """One top-level loop of a C++ kernel, with what runs inside it: the unit a line verdict is true of.

    ``lines``: its span in the kernel's code (1-based, first and last); ``trip``: the elements its index runs
    over, a number or a symbolic size such as ``ks0`` (None when its header was not understood); ``stacks``: the
    user stacks of the FX nodes it computes, as Inductor generated it (None when no record joins it); ``nodes``: the
    names of Inductor's scheduler nodes it computes (``op3``; 2.1: ``buf3``), from the same record.
    """

    index: int
    lines: tuple
    parallel: bool
    vectorized: bool
    reduction: bool
    tail: bool  # the scalar remainder after a vectorized loop
    trip: Optional[str]
    work: Optional[int]  # elements all its loop levels cover (the product of their ranges), when all are numbers
    strided_loads: list[str]
    stacks: Optional[list] = None
    nodes: Optional[list[str]] = None
    decisions: Optional[Decisions] = None  # None: the record holds none for this nest
    machine: Optional[MachineCode] = None  # its own machine code, where its functions hold no other nest's

    @property
    def trip_count(self):
        return int(self.trip) if self.trip and self.trip.isdigit() else None

    def describe(self):
        """'parallel, vectorized reduction' and the like."""
        kind = "reduction" if self.reduction else "tail" if self.tail else "loop"
        return f"{'parallel' if self.parallel else 'serial'}, {'vectorized' if self.vectorized else 'scalar'} {kind}"


@dataclass(frozen=True)
class TritonLaunch:
    """What a Triton kernel's source fixes about its launch, and what autotuning chose where it ran."""

    size_hints: Optional[dict[str, int]]
    grid_type: Optional[str]
    target: Optional[str]  # the device Inductor generated for: cpu (the preview) or cuda
    numels: dict[str, int]
    blocks: dict[str, int]
    num_warps: Optional[int]
    config: Optional[dict] = None  # the autotuned launch config (CUDA runs): the record's launch_configs entry
    grid: Optional[list[int]] = None  # programs per grid dimension
    text: str = ""


@dataclass(frozen=True)
class KernelCost:
    """A kernel's share of a compiled call: seconds per call over all its launches, and the memory it moved."""

    time_s: Optional[float] = None
    launches_per_call: Optional[float] = None
    time_share: Optional[float] = None
    read_bytes: Optional[int] = None  # per launch
    written_bytes: Optional[int] = None
    gb_s: Optional[float] = None
    bandwidth_fraction: Optional[float] = None
    threads_s: dict[int, float] = field(default_factory=dict)  # {threads: median seconds per launch}, launches taken in turn
    thread_speedup: Optional[float] = None  # its launch on 1 thread / on torch's threads (above 1: parallel paid)


@dataclass(frozen=True)
class Kernel:
    """A generated kernel (``cpp``, ``triton``) or a library call (``extern``) of one compiled graph."""

    id: str  # unique within a variant
    name: str
    graph: Optional[str]  # compile id
    backend: Backend
    kind: str  # pointwise | reduction | library call | a Triton heuristic
    code: str
    parallel: Optional[bool]
    parallel_regions: int
    vectorized: Optional[bool]  # None: not a CPU notion (Triton) or no code (extern)
    reduction: bool
    ops: int
    loads: int
    strided_loads: list[str]
    masked_loads: int
    trip_counts: list[str]
    evidence: list[Evidence]
    launches: list[Launch]  # in call() order
    handle: Optional[str] = None  # provenance debug handle
    loop_nests: list[LoopNest] = field(default_factory=list)
    triton: Optional[TritonLaunch] = None
    cost: KernelCost = KernelCost()
    machine: Optional[MachineCode] = None  # a C++ kernel's, all its functions (None: not recorded)

    def __post_init__(self):
        _as(self, "backend", Backend)

    @property
    def generated(self):
        return self.backend != Backend.EXTERN


@dataclass(frozen=True)
class Graph:
    """One compiled graph (a compile id) and the kernels its output code launches."""

    compile_id: Optional[str]
    op_count: Optional[int]
    cache: Optional[str]  # Inductor's FX graph cache outcome: hit, miss, bypass
    kernels: list[str]  # kernel names
    output_code: list[str]  # the output modules' text


@dataclass(frozen=True)
class GraphBreak:
    """A distinct graph break: where (the user's file and line), why (torch's words), and the usual fix."""

    file: Optional[str]  # the site: the innermost frame outside torch and the standard library (display name)
    line: Optional[int]
    code: Optional[str]  # the site's source line
    where: Optional[str]  # the site's file: sample | user | library | torch (no frame of any annotated file)
    chain: list[list]  # [file display, line] from the user's outermost line down to the site
    reason: str
    resumable: bool  # False: Dynamo could not resume after it and ran the rest of the frame eagerly
    cause: str  # a normalised cause: data-dependent-branch, item, dynamic-shape, print, unsupported, unknown
    explanation: Optional[str]
    hints: list[str]
    gb_id: Optional[str]
    url: Optional[str]
    fix: Optional[str]
    flag: Optional[str]  # a config flag that removes it
    count: int
    compile_id: Optional[str]
    mechanism: Optional[str]
    text: str
    after: Optional[str] = None  # the compiler backend failed on the code after it, which ran as Python (torch's why)


@dataclass(frozen=True)
class BreakCost:
    """Seconds per call outside compiled graphs (Python between graphs, guards, conversions) and inside."""

    outside_s: float
    inside_s: float
    outside_fraction: float


@dataclass(frozen=True)
class CompileWarning:
    """A silent cousin of a graph break: ``unrolled-loop``, ``recompile`` or ``recompile-limit``."""

    kind: str
    lines: list[int]
    graph: Optional[str]
    text: str


@dataclass(frozen=True)
class Recompilation:
    """How often a compiled variant compiled again after its first call, and why."""

    count: int  # compiles after the first call
    calls: Optional[int]  # calls after the first call, when the record says
    every_call: bool
    limit: Optional[str]  # "recompile_limit = 8" when Dynamo hit it and gave up compiling
    guards: list[list]  # [guard that failed, times]
    text: str  # what it means for the timings, in one sentence


@dataclass(frozen=True)
class ThreadScaling:
    """A compiled variant's parallel kernels timed on fewer threads than torch's, the same compiled code: did
    running them in parallel pay?"""

    threads: int  # torch's thread count: the table's times were taken with it
    points: list  # [[threads, seconds per call in its parallel kernels (median launches)]], 1 thread first
    speedup: Optional[float]  # their time on 1 thread / on ``threads``, from launches taken in turn
    specialised: Optional[str]  # why they could not run on fewer threads (torch 2.1 compiles the count in)
    text: Optional[str]  # what it means, in one sentence


@dataclass(frozen=True)
class MachineLoad:
    """How busy the machine was while a variant was timed (None: unknown: no /proc, or a window too short for
    /proc's 10 ms ticks)."""

    others_share: Optional[float]  # of all CPUs' time, the share other processes used
    steal_share: Optional[float]  # of all CPUs' time, the share the hypervisor stole
    loadavg: Optional[float]  # the 1-minute load average, the higher of its start and end (this run included)
    cpus: Optional[int]
    busy: Optional[str]  # why the timing is suspect, in one sentence; None when the machine was quiet or unknown
    why: list[str] = field(default_factory=list)  # its clauses: "other processes used 38% of the 2 CPUs", ...


@dataclass(frozen=True)
class LineVerdict:
    """What happened to one source line in one compiled variant, with the evidence that says so."""

    file: str  # the file's display name (SourceFile.display)
    line: int
    end_line: int
    function: str
    via: list[list]  # call sites, outermost first: [file display, line]
    status: Optional[LineStatus]  # None: no evidence names it
    vectorized: Optional[Vectorized]
    kernels: list[str]  # kernel ids
    nests: list[str]  # "kernel id#nest index" of the loop nests it is placed in
    why: list[Reason]
    how: list[How]  # the evidence used
    time_s: Optional[float] = None
    time_share: Optional[float] = None

    def __post_init__(self):
        _as(self, "status", LineStatus)
        _as(self, "vectorized", Vectorized)
        object.__setattr__(self, "how", [How(h) for h in self.how])


@dataclass(frozen=True)
class BreakEven:
    """Calls after which compiling paid off against the fastest eager variant; ``calls`` None: never."""

    calls: Optional[float]


@dataclass(frozen=True)
class Timing:
    """A variant's timed runs, and what they mean for the whole population."""

    median_s: float
    min_s: float
    max_s: float
    runs: int
    number: int
    first_call_s: Optional[float]
    samples_s: list[float]
    per_population_s: float  # the median scaled to the whole population (Python measures a subset)
    compile_s: Optional[float]  # compiled variants: torch's compile time, else first call minus median
    rounds_s: dict[int, float] = field(default_factory=dict)  # {round: median of that round, per population} (Rounds)
    scale: float = 1.0  # population over the individuals measured: min_s and max_s times it are per population

    @property
    def per_population_range(self):
        """(fastest, slowest) run scaled to the whole population, as per_population_s is."""
        return self.min_s * self.scale, self.max_s * self.scale


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
class Rounds:
    """The variants timed again in alternating rounds after the run, taking turns with the other runs of one
    comparison (``session``) so that all saw the same machine."""

    session: str
    runs: int  # how many runs took turns
    position: int  # this run's place in the turns (0: first)
    count: int  # rounds asked for
    budget_s: float  # seconds per variant per round


@dataclass(frozen=True)
class TimeSplit:
    """Where a compiled call's time went, from the profiled pass."""

    total_s: Optional[float] = None
    kernels_s: Optional[float] = None
    calls: Optional[int] = None
    mechanism: Optional[str] = None
    wrapper_s: Optional[float] = None
    outside_graphs_s: Optional[float] = None
    unmatched: list[str] = field(default_factory=list)
    error: Optional[str] = None


@dataclass(frozen=True)
class CompilePhases:
    """Compile seconds split as torch reports them, summed over a variant's graphs, and cache outcomes."""

    dynamo_s: float
    aot_s: float
    inductor_s: float
    codegen_s: float
    build_s: float
    total_s: float
    cache: dict


@dataclass(frozen=True)
class Transfer:
    """A CUDA variant's copies of the population to the device and of its output back, timed once (seconds)."""

    to_device_s: Optional[float]
    to_device_bytes: Optional[int]
    to_host_s: Optional[float]  # None: no output to copy back
    to_host_bytes: Optional[int]


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
        _as(self, "status", Status)

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
    population: int
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

    def text(self, line):
        """The stripped text of ``line`` (1-based), or ""."""
        lines = self.source.splitlines()
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

    MACHINE = ("cpu", "isa", "threads", "cuda")  # what must agree for timings to compare


@dataclass(frozen=True)
class SweepPoint:
    """One population size of a sweep: each variant's timing and speedups at that size."""

    population: int
    variants: list[Variant]  # without kernels or lines


@dataclass(frozen=True)
class ParseCount:
    """How much of one kind of torch output a parser read, and what it did not understand."""

    artifact: str  # output code, graph-break messages, log records
    read: int
    problems: list[str]  # one line each


@dataclass(frozen=True)
class Finding:
    """One compiled variant's graph breaks and warnings, with their cost (the breaks view)."""

    variant: str
    status: Status
    error: Optional[str]
    graphs: list[Graph]
    cost: Optional[BreakCost]
    breaks: list[GraphBreak]
    warnings: list[CompileWarning]
    recompilation: Optional[Recompilation] = None
    tried: list[Trial] = field(default_factory=list)  # inspector breaks --try-fixes
    bounds: list[str] = field(default_factory=list)  # what inspector's bounds on its own cost cut short

    def __post_init__(self):
        _as(self, "status", Status)


@dataclass(frozen=True)
class Trial:
    """A fix inspector tried without editing the user's code, on one compiled variant, and what it measured.

    ``speedup``: the variant's time over the trial's, the median of their side-by-side ratios over ``rounds``
    alternating rounds (``spread``: the lowest and highest of them), else the ratio of their medians timed one after
    the other (``rounds`` 0), or for a trial called at further sizes (``sizes``) the ratio of one steady call at
    the last; ``gain``: it ran, matched the variant's output, and was at least 1.05x faster (in every
    round); only then is it advice. ``vectorized_now``/``parallel_now``: [(file, line)] that were not and now are.
    """

    id: str
    variant: str  # the variant it changed
    fix: str  # column-major, tiling-off, or a Dynamo flag's name (capture_scalar_outputs)
    what: str  # the fix as a user applies it
    status: Status  # ok | error
    error: Optional[str]
    matches: Optional[bool]  # its output against the variant's
    mismatch: Optional[str]
    speedup: Optional[float]
    spread: Optional[list[float]]
    rounds: int
    median_before_s: Optional[float]
    median_after_s: Optional[float]
    vectorized_now: list[tuple]
    parallel_now: list[tuple]
    breaks_before: int
    breaks_after: int
    gone: list[tuple]  # lines whose breaks went away
    gain: bool
    alone: bool = False  # compiled after torch._dynamo.reset() and timed alone (torch 2.1 shares compiled code)
    flag: Optional[str] = None  # the config item tried (KEY=VALUE), for a config fix
    sizes: list[tuple] = field(default_factory=list)  # [(population, steady s before, after, recompiles before, after)]
    text: str = ""  # "tried: column-major → 3.1x faster (...), lines 23-32 now vectorized"

    def __post_init__(self):
        _as(self, "status", Status)


@dataclass(frozen=True)
class BreaksView:
    """What ``inspector breaks`` shows: per compiled variant its findings, with the flags it tried."""

    sample: str
    torch: Optional[str]
    population: int
    variants: list[Finding]


@dataclass(frozen=True)
class Analysis:
    """Everything derived from one record: what every renderer reads."""

    schema: str
    inspector: str
    created: str
    sample: Sample
    env: Env
    files: list[SourceFile]  # the sample first, then the user's modules, then libraries
    config: list  # [{"key", "value"}]
    compile_options: dict  # torch.compile's keywords the run used
    reference: Optional[str]
    interrupted: bool
    probe_restarts: int
    trace_dir: Optional[str]
    variants: list[Variant]
    sweep: list[SweepPoint]
    parse: list[ParseCount]
    internal_errors: list[InternalError]  # every one of the run
    findings: list[Finding]  # costliest first
    rounds: Optional[Rounds] = None  # the alternating rounds, when it was timed in them
    program: Optional[Program] = None  # a program's run (``inspector run``): its variants are its compiled functions
    trace_logs: list[str] = field(default_factory=list)  # torch's trace logs in ``trace_dir``, for tlparse
    load: Optional[MachineLoad] = None  # the machine over all of the run's timing windows

    def variant(self, vid):
        return next(v for v in self.variants if v.id == vid)

    def file(self, display):
        return next((f for f in self.files if f.display == display), None)

    @property
    def failed(self):
        return [v for v in self.variants if v.failed]

    @property
    def not_understood(self):
        return sum(len(p.problems) for p in self.parse)


STEADY = "time per steady call"  # a program's function's time row: the median of its steady calls


@dataclass(frozen=True)
class TimeRow:
    """One timing of two runs side by side (seconds; None: not timed under that run) and the second's speedup; from
    alternating rounds, the median of the rounds' ratios with their ``spread`` [lowest, highest] over ``rounds``."""

    what: str
    a: Optional[float]
    b: Optional[float]
    speedup: Optional[float]  # a / b: above 1, the second run is faster
    spread: Optional[tuple] = None
    rounds: Optional[int] = None


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
    a: Optional[tuple]
    b: Optional[tuple]
    lines: tuple


@dataclass(frozen=True)
class CodePair:
    """A kernel (or the wrapper's ``call()``) under two runs: its names, its hunks, and what else changed."""

    a: str
    b: str
    hunks: tuple[Hunk, ...]
    changes: tuple = ()  # "vectorized: no → yes", ...

    @property
    def structural_lines(self):
        return [ln for h in self.hunks if h.kind == "structural" for ln in h.lines]

    @property
    def identical(self):
        return not self.structural_lines

    @property
    def added_lines(self):
        return sum(ln[0] == "+" for ln in self.structural_lines)

    @property
    def removed_lines(self):
        return sum(ln[0] == "-" for ln in self.structural_lines)


VECTORIZED = {Vectorized.ALL: "vectorized", Vectorized.SOME: "partly vectorized", Vectorized.NONE: "not vectorized",
              Vectorized.UNKNOWN: "vectorization unknown"}  # a line verdict's vectorized, in words, best news first


@dataclass(frozen=True)
class LineVerdicts:
    """A line's verdicts in one run, all its call sites together: distinct (status, vectorized) pairs in order of
    first appearance (vectorized: a key of VECTORIZED, or None where it says nothing), and the evidence used."""

    verdicts: tuple
    how: tuple

    def describe(self):
        """'parallel, vectorized / eager'."""
        return " / ".join(status + (f", {VECTORIZED[vec]}" if vec else "") for status, vec in self.verdicts)

    @property
    def rank(self):
        """How bad the news is: the worst status, then the least vectorized; None where a status is unknown (no
        worse, no better)."""
        order = list(VECTORIZED)[:3]
        if any(status not in STATUSES or status == LineStatus.UNKNOWN for status, _ in self.verdicts):
            return None
        return max(len(order) * STATUSES.index(status) + (order.index(vec) if vec in order else 0)
                   for status, vec in self.verdicts)


@dataclass(frozen=True)
class Place:
    """A line as a comparison names it: ``file`` the display name of its file, None for the sample's."""

    file: Optional[str]
    line: Optional[int]

    @property
    def where(self):
        """'line 7', or 'line 7 of samples/helpers/penalties.py'."""
        return f"line {self.line}" + (f" of {self.file}" if self.file else "")


@dataclass(frozen=True)
class ComparedLine(Place):
    """A source line with a verdict under either run (its number in the second run where it has one there)."""

    function: str
    text: str  # stripped, from its own file ("" where the record does not hold that file)
    a: Optional[LineVerdicts]  # None: no evidence names it under that run
    b: Optional[LineVerdicts]

    @property
    def changed(self):
        return bool(self.a and self.b) and self.a.verdicts != self.b.verdicts


@dataclass(frozen=True)
class BreakChange(Place):
    """A graph break under one of two runs only: ``lost`` (only under the first) or ``gained``."""

    change: str
    reason: str


@dataclass(frozen=True)
class CallsChange:
    """A program's compiled function under two runs: its calls, steady calls and recompiles, and what it raised
    ((call, the error's first line), or None)."""

    calls: tuple
    steady_calls: tuple
    recompiles: tuple
    raised: tuple


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
    status: tuple[str, str]  # (under a, under b)
    errors: tuple
    timing: tuple[TimeRow, ...]  # the time row first
    change: str
    run: Optional[CallsChange] = None
    control: Optional[str] = None
    kernels: tuple = ()  # (CodePair, ...)
    removed: tuple = ()  # kernel names only under the first run
    added: tuple = ()
    time_goes: Optional[TimeGoes] = None
    lines: tuple = ()  # (ComparedLine, ...) in line order
    breaks: tuple = ()  # (BreakChange, ...)
    cache: Optional[tuple] = None  # Inductor's FX graph cache outcomes, where they differ
    wrapper: Optional[CodePair] = None

    @property
    def ok(self):
        """It ran under both."""
        return self.status == (Status.OK, Status.OK)

    @property
    def time(self):
        """Its time row (a program's function: its time per steady call), or None."""
        return self.timing[0] if self.timing and self.timing[0].what in ("time", STEADY) else None

    @property
    def changed_lines(self):
        return [e for e in self.lines if e.changed]

    @property
    def one_sided(self):
        return [e for e in self.lines if not (e.a and e.b)]

    @property
    def same_lines(self):
        return [e for e in self.lines if e.a and e.b and not e.changed]


@dataclass(frozen=True)
class Confounder:
    """What differs between two runs besides torch's version (compare.CONFOUNDERS), and what it changes."""

    key: str
    what: str
    a: str
    b: str
    text: str


@dataclass(frozen=True)
class RunPair:
    """The baseline and one other run of a comparison (labels ``a`` and ``b``), variant by variant."""

    a: str
    b: str
    warnings: tuple  # sentences, the confounders' first
    confounders: tuple[Confounder, ...]
    variants: tuple[ComparedVariant, ...]
    program: bool
    interleaved: bool  # timed in alternating rounds
    only_a: tuple  # variant ids
    only_b: tuple


@dataclass(frozen=True)
class ComparedRun:
    """One run of a comparison: its label and what it ran with; ``record`` and ``report``: its record as given and
    its HTML report's path from the comparison's folder (None where not made)."""

    label: str
    env: Env
    build: str
    config: tuple  # KEY=VALUE
    population: int
    created: str
    argv: Optional[list]  # a program's arguments
    load: Optional[str]  # a program's machine load, in words
    record: Optional[str] = None
    report: Optional[str] = None


@dataclass(frozen=True)
class Comparison:
    """Runs of one sample or program compared with the first (the baseline): one RunPair per other run."""

    sample: Sample
    program: bool
    runs: tuple[ComparedRun, ...]
    pairs: tuple[RunPair, ...]


def to_json(value):
    """Plain JSON data (dicts, lists, numbers, strings) for any value of this module."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value
