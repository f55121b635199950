"""What torch.compile made of a function: its graphs, their kernels and loop nests, Inductor's decisions, the machine
code, and what each kernel cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model.breaks import BreakCost, CompileWarning, GraphBreak, Recompilation
from inspector.model.lines import FunctionSpan, LineVerdict
from inspector.model.machine import MachineCode
from inspector.model.why import Scaled
from inspector.model.words import Backend, coerce
from inspector.raw import JSON


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
    dtypes: tuple[str, ...] = ()
    not_vectorizable: tuple[str, ...] = ()
    ops: Optional[int] = None
    non_contiguous: tuple[tuple[str, int], ...] = ()  # (op kind, count): load, store, index_expr, value_expr
    mask_ops: Optional[int] = None
    heuristics: Optional[bool] = None  # cpp.enable_tiling_heuristics
    loop_tail_vec: Optional[bool] = None  # cpp.enable_loop_tail_vec
    ranges: tuple[str, ...] = ()
    count_limit: Optional[float] = None
    ratio_limit: Optional[float] = None
    small_fraction: Optional[float] = None
    small_ops: Optional[float] = None
    message: Optional[str] = None

    @property
    def non_contiguous_count(self) -> int:
        return sum(n for _, n in self.non_contiguous)


@dataclass(frozen=True)
class ParallelChoice:
    """Inductor's parallel-depth decision for a loop nest (``decide_parallel_depth``): the loop levels it made OpenMP
    loops of, from the work (elements of all levels), the threads and ``cpp.min_chunk_size``."""

    work: Optional[int]
    threads: int
    min_chunk_size: Optional[int]  # None: not in the record
    dynamic_threads: bool
    depth: int
    levels: tuple[str, ...]


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

    tiling: tuple[Tiling, ...] = ()  # one per kernel proxy the nest holds
    parallel: tuple[ParallelChoice, ...] = ()
    gathers: tuple[Gather, ...] = ()  # distinct
    lane_ops: tuple[tuple[str, int], ...] = ()  # (op, times generated): ops with no vector form, run lane by lane
    tail_vectorized: Optional[bool] = None  # the remainder after the vector loop (None: no vector loop, or unknown)
    unrecorded: tuple[tuple[str, str], ...] = ()  # (decision kind, why) that this torch could not record


@dataclass(frozen=True)
class LoopNest:
    """One top-level loop of a C++ kernel, with what runs inside it: the unit a line verdict is true of.

    ``lines``: its span in the kernel's code (1-based, first and last); ``trip``: the elements its index runs
    over, a number or a symbolic size such as ``ks0`` (None when its header was not understood); ``stacks``: the
    user stacks of the FX nodes it computes, as Inductor generated it (None when no record joins it); ``nodes``: the
    names of Inductor's scheduler nodes it computes (``op3``; 2.1: ``buf3``), from the same record.
    """

    index: int
    lines: tuple[int, int]
    parallel: bool
    vectorized: bool
    reduction: bool
    tail: bool  # the scalar remainder after a vectorized loop
    trip: Optional[str]
    work: Optional[int]  # elements all its loop levels cover (the product of their ranges), when all are numbers
    strided_loads: list[str]
    stacks: Optional[list[str]] = None
    nodes: Optional[list[str]] = None
    decisions: Optional[Decisions] = None  # None: the record holds none for this nest
    machine: Optional[MachineCode] = None  # its own machine code, where its functions hold no other nest's

    @property
    def trip_count(self) -> Optional[int]:
        return int(self.trip) if self.trip and self.trip.isdigit() else None

    def describe(self) -> str:
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
    config: Optional[JSON] = None  # the autotuned launch config (CUDA runs): the record's launch_configs entry
    grid: Optional[list[int]] = None  # programs per grid dimension
    # its words: the launch in a few words (inspector/render/said.py; the JSON's ``text``)


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
    threads_s: dict[int, float] = field(default_factory=dict)  # {threads: median s per launch}, taken in turn
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
    ops: int
    loads: int
    strided_loads: list[str]
    masked_loads: int
    evidence: list[Evidence]
    launches: list[Launch]  # in call() order
    handle: Optional[str] = None  # provenance debug handle
    loop_nests: list[LoopNest] = field(default_factory=list)
    triton: Optional[TritonLaunch] = None
    cost: KernelCost = KernelCost()
    machine: Optional[MachineCode] = None  # a C++ kernel's, all its functions (None: not recorded)

    def __post_init__(self) -> None:
        coerce(self, "backend", Backend)

    @property
    def generated(self) -> bool:
        return self.backend != Backend.EXTERN

    @property
    def reduction(self) -> bool:
        """Whether it reduces (its kind says so: reduction, or a Triton reduction heuristic)."""
        return "reduction" in self.kind

    @property
    def trip_counts(self) -> list[int]:
        """The trip counts of its loop nests, where they are numbers."""
        return [n.trip_count for n in self.loop_nests if n.trip_count is not None]


@dataclass(frozen=True)
class Graph:
    """One compiled graph (a compile id) and the kernels its output code launches."""

    compile_id: Optional[str]
    op_count: Optional[int]
    cache: Optional[str]  # Inductor's FX graph cache outcome: hit, miss, bypass
    kernels: list[str]  # kernel names
    output_code: list[str]  # the output modules' text


OVERHEAD = 0.5  # a compiled call this much outside its kernels: its overhead, not its kernels, sets its time


@dataclass(frozen=True)
class TimeSplit:
    """Where a compiled call's time went, from the profiled pass: its kernels, Inductor's wrapper code between them
    (``wrapper_s``), torch's wrappers around the graphs (``torch_wrappers_s``: Dynamo's and AOTAutograd's, inside
    the compiled region), the evaluation of the cached code's guards (``guards_s``), and the rest (``outside_graphs_s``:
    Python between graphs, conversions); the last three None where the profile does not tell them apart (torch 2.1:
    ``outside_graphs_s`` then holds them all; a function with graph breaks: torch's compiled region also holds the
    eager code between its graphs, so ``torch_wrappers_s`` is None and ``outside_graphs_s`` holds them). Each is the
    median over the profiled calls (``calls``), and they add to ``total_s``; ``call_s``: the same call timed without
    the profiler (the smaller of the pass's calls just before and after the profiled ones and the probe's own first
    timing; a program's function: the pass's, else its steady calls'), ``total_s`` less it being the profiler's own
    cost, in the wrappers and the rest."""

    total_s: Optional[float] = None
    kernels_s: Optional[float] = None
    calls: Optional[int] = None
    mechanism: Optional[str] = None
    wrapper_s: Optional[float] = None
    outside_graphs_s: Optional[float] = None
    torch_wrappers_s: Optional[float] = None
    guards_s: Optional[float] = None
    unmatched: list[str] = field(default_factory=list)
    error: Optional[str] = None
    call_s: Optional[float] = None
    without_profiler: Optional[Unprofiled] = None

    def parts(self) -> tuple[TimeSplit | Unprofiled, Optional[float]]:
        """(the parts, the call they add to): less the profiler's own cost where it was estimated (the call timed
        without the profiler), else as profiled (the profiled call)."""
        if self.without_profiler and self.call_s:
            return self.without_profiler, self.call_s
        return self, self.total_s


@dataclass(frozen=True)
class Unprofiled:
    """A profiled call's parts less the profiler's own cost, estimated (torch does not time its profiler): the
    profiled call less the call timed without it (``TimeSplit.total_s`` − ``call_s``), over the ``events`` the
    profiler recorded in a call, is ``per_event_s``; each part loses that for each event recorded in it (at least
    0), so that the parts add to the call (more only where a part would have gone below 0)."""

    events: float
    per_event_s: float
    kernels_s: Optional[float]
    wrapper_s: Optional[float]
    torch_wrappers_s: Optional[float]
    guards_s: Optional[float]
    outside_graphs_s: Optional[float]


@dataclass(frozen=True)
class CompilePhases:
    """Compile seconds split as torch reports them, summed over a variant's graphs, and cache outcomes."""

    dynamo_s: float
    aot_s: float
    inductor_s: float
    codegen_s: float
    build_s: float
    total_s: float
    cache: dict[str, int]  # {FX graph cache outcome: graphs}


@dataclass(frozen=True)
class ThreadScaling:
    """A compiled variant's parallel kernels timed on fewer threads than torch's, the same compiled code: did
    running them in parallel pay?"""

    threads: int  # torch's thread count: the table's times were taken with it
    points: list[tuple[int, float]]  # (threads, seconds per call in its parallel kernels (median launches)), 1 first
    speedup: Optional[float]  # their time on 1 thread / on ``threads``, from launches taken in turn
    specialised: Optional[str]  # why they could not run on fewer threads (torch 2.1 compiles the count in)
    scaled: Optional[Scaled]  # whether that paid (its words: what it means, written as ``text`` in the JSON)


@dataclass(frozen=True)
class SizeCall:
    """A compiled function called at one further population size (``breaks --population-sizes``): its first and
    steady call's seconds (the median of ``steady_calls``), how many times it compiled again there, and the guards
    that failed (torch's words)."""

    population: int
    first_call_s: Optional[float]
    steady_s: Optional[float]
    recompiles: int
    guards: tuple[str, ...]
    steady_calls: int = 1


@dataclass(frozen=True)
class CompiledCode:
    """What torch.compile made of one function's calls, analysed from the raw facts alone
    (``inspector.analysis.compiled.build``): its graphs and their kernels, with what each cost; its graph breaks and
    the time outside compiled graphs; their silent cousins (unrolled loops, recompiles); its source lines' verdicts
    and the functions they are in; where a profiled call's time went, compile time by phase and whether its threads
    paid; its calls at further population sizes; and what inspector's bounds on its own cost cut short. Empty for an
    eager variant."""

    kernels: tuple[Kernel, ...] = ()
    graphs: tuple[Graph, ...] = ()
    breaks: tuple[GraphBreak, ...] = ()
    break_cost: Optional[BreakCost] = None
    warnings: tuple[CompileWarning, ...] = ()
    lines: tuple[LineVerdict, ...] = ()
    time_split: Optional[TimeSplit] = None
    compile_phases: Optional[CompilePhases] = None
    threads: Optional[ThreadScaling] = None
    recompile_count: int = 0  # graphs compiled after the first call
    recompilation: Optional[Recompilation] = None
    sizes: tuple[SizeCall, ...] = ()
    bounds: tuple[str, ...] = ()  # sentences
    functions: tuple[tuple[str, tuple[FunctionSpan, ...]], ...] = ()  # per file (display name) holding line
    #                                                               verdicts, the functions around them
