"""The raw record as typed values: what ``inspector.record`` stores, read once into frozen dataclasses.

``RawRecord.from_json(data)`` reads a schema-2 record (``inspector.record.load`` migrates schema 1 first) and
``to_json()`` gives the same dict back: a key absent from the JSON stays absent (``absent``), and a key this version
does not know is kept in its object's ``other`` and listed by ``RawRecord.unknown()`` (the report's parse statistics
count them), never an error. Each field is the record's key of the same name (docs/record.md); ``but(**changes)``
is ``dataclasses.replace`` that also writes a key that was absent.

Fields left as JSON values (dicts and lists of them): torch's own free-form data (``metrics``, ``config``,
``compile_options``, ``kernel_stack_traces``, ``launch_configs``, a kernel decision's ``args``); ``files`` is a
{path: source} map. A field whose key is a Python keyword names its key in ``metadata["key"]`` (``RawDecision.class_``).
``Status`` holds the words of a run's ``status`` (a field keeps the word the JSON had, known or not).
"""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any, Optional, TypeVar

R = TypeVar("R", bound="Raw")
JSON = dict[str, Any]  # a JSON object as torch or the user wrote it (metrics, config, compile options, launch configs)
TILING_OFF = "cpp.enable_tiling_heuristics=False"  # a trial's config item: Inductor's tiling heuristic off
# a trial's config key naming a function of torch.compiler that filters the guards Dynamo keeps (torch.compile's
# options["guard_filter_fn"]), and the item that keeps only the guards on tensors
GUARD_FILTER = "guard_filter_fn"
TENSOR_GUARDS = f"{GUARD_FILTER}=keep_tensor_guards_unsafe"
# capture's Inductor provenance tracking level (its kernels' source lines): part of Inductor's FX graph cache key
PROVENANCE_LEVEL = 1


class Words(str, Enum):
    """A string-valued enum whose members print as their values (``enum.StrEnum`` from Python 3.11)."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__format__(self, format_spec)


class Status(Words):
    """How a variant's (or a trial's) run ended: the record's ``status``."""

    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"
    TIMEOUT = "timeout"


@dataclass(frozen=True, kw_only=True)
class Raw:
    """One JSON object of the record: its known keys as fields, ``other`` the keys this version does not know."""

    other: dict[str, Any] = field(default_factory=dict)
    absent: frozenset[str] = field(default=frozenset(), repr=False)  # keys the JSON lacked (built directly: none)

    @classmethod
    def from_json(cls: type[R], data: object) -> R:
        """The typed value of the JSON object ``data``."""
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__}.from_json takes a dict, not {type(data).__name__}")
        plans, known = _plans(cls), _known(cls)
        return cls(**{name: _read(plan, data[key]) for name, key, plan in plans if key in data},
                   other={k: v for k, v in data.items() if k not in known},
                   absent=frozenset(name for name, key, _ in plans if key not in data))

    def to_json(self) -> dict[str, Any]:
        """The JSON object this value was read from (or would be read from)."""
        keys = _keys(type(self))
        out = {keys[name]: _write(getattr(self, name)) for name in _fields(type(self)) if name not in self.absent}
        return dict(out, **self.other)

    def given(self, name: str, default: Any) -> Any:
        """The field ``name``, or ``default`` where the JSON had no such key (``dict.get(name, default)``)."""
        return default if name in self.absent else getattr(self, name)

    def but(self: R, **changes: Any) -> R:
        """This value with ``changes`` (typed or JSON), each written to the JSON even where its key was absent."""
        hints = _fields(type(self))
        return replace(self, absent=self.absent - changes.keys(),
                       **{k: _read(_plan(hints[k]), v) for k, v in changes.items()})

    def unknown(self, where: str = "") -> list[str]:
        """The keys this version does not know, here and inside, as "path.key"."""
        found = [f"{where}{key}" for key in self.other]
        for name in _fields(type(self)):
            value = getattr(self, name)
            items = (value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list)
                     else [(None, value)])
            found += [x for key, item in items if isinstance(item, Raw)
                      for x in item.unknown(f"{where}{name}{'' if key is None else f'[{key}]'}.")]
        return found


_FIELDS: dict[type[Raw], dict[str, Any]] = {}
_KEYS: dict[type[Raw], dict[str, str]] = {}


def _fields(cls: type[Raw]) -> dict[str, Any]:
    """{field name: its type} of a Raw class, without the bookkeeping fields (worked out once per class)."""
    if cls not in _FIELDS:
        hints = typing.get_type_hints(cls)
        _FIELDS[cls] = {f.name: hints[f.name] for f in fields(cls) if f.name not in ("other", "absent")}
    return _FIELDS[cls]


def _keys(cls: type[Raw]) -> dict[str, str]:
    """{field name: its JSON key}: the name, or the field's ``metadata["key"]`` where the key is a Python keyword."""
    if cls not in _KEYS:
        _KEYS[cls] = {f.name: f.metadata.get("key", f.name) for f in fields(cls) if f.name in _fields(cls)}
    return _KEYS[cls]


# how a JSON value is read: (list or dict, the plan of each item), (a Raw class, None), or (None, None): as it is
Plan = tuple[Any, Any]


_PLANS: dict[type[Raw], tuple[tuple[str, str, Plan], ...]] = {}
_KNOWN: dict[type[Raw], frozenset[str]] = {}


def _plans(cls: type[Raw]) -> tuple[tuple[str, str, Plan], ...]:
    """(field name, JSON key, how its value is read) of each field of a Raw class (worked out once per class)."""
    if cls not in _PLANS:
        keys = _keys(cls)
        _PLANS[cls] = tuple((name, keys[name], _plan(hint)) for name, hint in _fields(cls).items())
    return _PLANS[cls]


def _known(cls: type[Raw]) -> frozenset[str]:
    """The JSON keys a Raw class reads."""
    if cls not in _KNOWN:
        _KNOWN[cls] = frozenset(_keys(cls).values())
    return _KNOWN[cls]


@functools.lru_cache(maxsize=None)
def _plan(hint: Any) -> Plan:
    """How a value of type ``hint`` is read: a Raw class, or a list or dict of one; anything else kept as it is."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, Raw):
        return hint, None
    if origin is list and args[0] is not Any:
        return list, _plan(args[0])
    if origin is dict and args[1] is not Any:
        return dict, _plan(args[1])
    return None, None


def _read(plan: Plan, value: Any) -> Any:
    """``value`` (JSON) as ``plan`` says (``_plan``)."""
    kind, inner = plan
    if kind is None:
        return value
    if kind is list:
        return [_read(inner, x) for x in value] if isinstance(value, list) else value
    if kind is dict:
        return {k: _read(inner, x) for k, x in value.items()} if isinstance(value, dict) else value
    return kind.from_json(value) if isinstance(value, dict) else value


def _write(value: Any) -> Any:
    """The JSON of a typed value: Raw values as their objects, inside lists and dicts too."""
    if isinstance(value, Raw):
        return value.to_json()
    if isinstance(value, list):
        return [_write(x) for x in value]
    if isinstance(value, dict):
        return {k: _write(x) for k, x in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class RawError(Raw):
    where: Optional[str] = None
    error: Optional[str] = None
    detail: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawIgnored(Raw):
    name: Optional[str] = None
    reason: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawSample(Raw):
    path: Optional[str] = None
    file: Optional[str] = None
    title: Optional[str] = None
    description: Optional[str] = None
    population: Optional[int] = None
    default_population: Optional[int] = None
    seed: Optional[int] = None
    shape: Optional[list[Any]] = None
    dtype: Optional[str] = None
    source: Optional[str] = None
    tolerance: Optional[float] = None
    ignored: Optional[list[RawIgnored]] = None


@dataclass(frozen=True, kw_only=True)
class RawBandwidth(Raw):
    gb_s: Optional[float] = None
    bytes: Optional[int] = None
    machine: Optional[str] = None
    method: Optional[str] = None
    measured: Optional[str] = None
    cached: Optional[bool] = None


@dataclass(frozen=True, kw_only=True)
class RawEnv(Raw):
    python: Optional[str] = None
    torch: Optional[str] = None
    numpy: Optional[str] = None
    threads: Optional[int] = None
    cuda: Optional[str] = None
    cpu: Optional[str] = None
    isa: Optional[str] = None
    platform: Optional[str] = None
    executable: Optional[str] = None
    cpu_count: Optional[int] = None
    min_chunk_size: Optional[int] = None
    stdlib: Optional[str] = None
    torch_dir: Optional[str] = None
    inspector_dir: Optional[str] = None
    inductor_cache_dir: Optional[str] = None
    loadavg: Optional[float] = None
    memory_bandwidth: Optional[RawBandwidth] = None
    numba: Optional[str] = None  # numba's version where the probe's interpreter can import it


@dataclass(frozen=True, kw_only=True)
class RawCode(Raw):
    """Where a variant's callable's code is (``end_line``: a program's function only)."""

    file: Optional[str] = None
    line: Optional[int] = None
    name: Optional[str] = None
    end_line: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawLoad(Raw):
    """How busy the machine was over a timing window (``loadavg``: at its start and end)."""

    wall_s: Optional[float] = None
    cpus: Optional[int] = None
    others_cpu_s: Optional[float] = None
    steal_s: Optional[float] = None
    cpu_total_s: Optional[float] = None
    loadavg: Optional[list[Optional[float]]] = None


@dataclass(frozen=True, kw_only=True)
class RawTransfer(Raw):
    """A CUDA variant's copies of its population to the device and of its output back."""

    to_device_s: Optional[float] = None
    to_device_bytes: Optional[int] = None
    to_host_s: Optional[float] = None
    to_host_bytes: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawPeakMemory(Raw):
    """The probe's peak resident bytes, ``since`` its variant started or the probe did."""

    bytes: Optional[int] = None
    since: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawTiming(Raw):
    first_call_s: Optional[float] = None
    median_s: Optional[float] = None
    min_s: Optional[float] = None
    max_s: Optional[float] = None
    runs: Optional[int] = None
    number: Optional[int] = None
    samples_s: Optional[list[float]] = None


# the compile metrics a warm compile keeps: the phase timers analysis.cost.phases reads, and the caches' outcomes
WARM_METRICS = ("entire_frame_compile_time_s", "backend_compile_time_s", "inductor_compile_time_s", "code_gen_time_s",
                "triton_compile_time_us", "inductor_fx_local_cache_hit_count", "inductor_fx_local_cache_miss_count",
                "aotautograd_local_cache_hit_count", "aotautograd_local_cache_miss_count", "fail_type")


def warm_metrics(metrics: JSON, more: tuple[str, ...] = ()) -> JSON:
    """The WARM_METRICS (and ``more``) of one compile's metrics that torch recorded."""
    return {k: metrics[k] for k in (*more, *WARM_METRICS) if metrics.get(k) is not None}


def cache_missed(metrics: list[JSON]) -> bool:
    """Whether compiles (torch's compile metrics of each) missed Inductor's FX graph cache or AOTAutograd's: they
    filled them, and a rerun would find them."""
    return any(m.get("inductor_fx_local_cache_miss_count") or m.get("aotautograd_local_cache_miss_count")
               for m in metrics)


@dataclass(frozen=True, kw_only=True)
class RawWarm(Raw):
    """A compiled variant compiled again in a fresh process with torch's caches as an earlier process left them
    (``inspector.probe.warm``): its first and steady call, torch's compile metrics for it (absent: the version keeps
    none), the cache folder, how many processes it took (2: the first filled the cache), and what that process's
    first compile paid once, loading torch's compiler and its kernel loader (``inspector.probe.warm``);
    ``during_run``: measured in the run itself, where torch found all its graphs in its caches in ``cache_dir``
    (``inspector.collect.program.warm_in_run``); ``error``: why it was not measured."""

    first_call_s: Optional[float] = None
    steady_s: Optional[float] = None
    metrics: Optional[list[JSON]] = None
    cache_dir: Optional[str] = None
    processes: Optional[int] = None
    compiler_start_s: Optional[float] = None
    during_run: Optional[bool] = None
    error: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawRoundTiming(Raw):
    """One round of a variant's alternating rounds (``error`` where it failed)."""

    round: Optional[int] = None
    median_s: Optional[float] = None
    min_s: Optional[float] = None
    max_s: Optional[float] = None
    runs: Optional[int] = None
    number: Optional[int] = None
    calls: Optional[int] = None
    load: Optional[RawLoad] = None
    error: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawPythonLine(Raw):
    file: Optional[str] = None
    line: Optional[int] = None
    function: Optional[str] = None
    count: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawRegions(Raw):
    calls: Optional[int] = None
    total_s: Optional[float] = None
    graphs_s: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class RawSizeRecompile(Raw):
    compile_id: Optional[str] = None
    op_count: Optional[int] = None
    reason: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawSize(Raw):
    """A compiled variant's calls at a further population size (``--population-sizes``)."""

    population: Optional[int] = None
    first_call_s: Optional[float] = None
    steady_s: Optional[float] = None  # the median of steady_calls (absent: one)
    steady_calls: Optional[int] = None
    recompiles: Optional[list[RawSizeRecompile]] = None


@dataclass(frozen=True, kw_only=True)
class RawOrigin(Raw):
    """A user stack of a nest's FX nodes (``stack``: "" where they have none) and those nodes."""

    stack: Optional[str] = None
    fx_nodes: Optional[list[str]] = None


@dataclass(frozen=True, kw_only=True)
class RawTilingLimits(Raw):
    """The numbers Inductor's TilingSelect compares against, read from torch's source (None where not found)."""

    non_contiguous_count: Optional[int] = None
    non_contiguous_ratio: Optional[float] = None
    small_inner_fraction: Optional[float] = None
    small_inner_ops: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawDecision(Raw):
    """One of Inductor's decisions for a nest: the fields of its ``kind`` (docs/record.md), the others absent."""

    kind: Optional[str] = None
    branch: Optional[str] = None  # tiling
    factors: Optional[list[Any]] = None
    indices: Optional[list[Any]] = None
    factor: Optional[int] = None  # tiling, checker
    dtypes: Optional[list[str]] = None
    not_vectorizable: Optional[list[str]] = None
    ops: Optional[int] = None
    non_contiguous: Optional[dict[str, int]] = None
    mask_ops: Optional[int] = None
    heuristics: Any = None
    loop_tail_vec: Optional[bool] = None
    ranges: Optional[list[str]] = None
    reduction_ranges: Optional[list[str]] = None
    limits: Optional[RawTilingLimits] = None
    message: Optional[str] = None  # checker
    class_: Optional[str] = field(default=None, metadata={"key": "class"})  # kernel
    args: Any = None
    work: Any = None  # parallel
    threads: Optional[int] = None
    min_chunk_size: Optional[int] = None
    dynamic_threads: Optional[bool] = None
    depth: Optional[int] = None
    levels: Optional[list[str]] = None
    buffer: Optional[str] = None  # gather
    index: Optional[str] = None
    store: Optional[bool] = None
    dtype: Optional[str] = None
    lanes: Optional[int] = None
    op: Optional[str] = None  # lane
    counts: Optional[dict[str, int]] = None  # dropped


@dataclass(frozen=True, kw_only=True)
class RawNest(Raw):
    """One C++ loop nest Inductor generated."""

    code: Optional[list[str]] = None
    nodes: Optional[list[str]] = None
    origins: Optional[list[RawOrigin]] = None
    decisions: Optional[list[RawDecision]] = None


@dataclass(frozen=True, kw_only=True)
class RawFusion(Raw):
    """Why Inductor's scheduler did not fuse two ``nodes`` (a fused one named ``op1_op4``)."""

    nodes: Optional[list[str]] = None
    reason: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawGraph(Raw):
    """One graph torch compiled (``inspector.probe.capture``); ``kept``: torch found it in its caches, and capture
    took its nests, fusion decisions and stacks from what it kept when it compiled (that compile's ``metrics`` and
    ``fx_graph_cache`` outcome; ``inspector.probe.graphcache``)."""

    compile_id: Optional[str] = None
    user_stack: Any = None
    fx_graph: Optional[str] = None
    output_code: Optional[list[str]] = None
    nests: Optional[list[RawNest]] = None
    fusion: Optional[list[RawFusion]] = None
    kernel_stack_traces: Any = None
    metrics: Optional[JSON] = None
    fx_graph_cache: Any = None
    kept: Optional[JSON] = None


@dataclass(frozen=True, kw_only=True)
class RawBreak(Raw):
    compile_id: Optional[str] = None
    text: Optional[str] = None
    mechanism: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawCounts(Raw):
    """A function's or a source line's instructions by class (a class it has none of is absent)."""

    instructions: Optional[int] = None
    packed_fp: Optional[int] = None
    scalar_fp: Optional[int] = None
    packed_int: Optional[int] = None
    simd_data: Optional[int] = None
    gather: Optional[int] = None
    scatter: Optional[int] = None
    mask: Optional[int] = None
    general: Optional[int] = None
    calls: Optional[dict[str, int]] = None
    register: Optional[str] = None
    unclassified: Optional[dict[str, int]] = None
    local: Optional[list[str]] = None  # a function's: the local functions it calls, counted in it


@dataclass(frozen=True, kw_only=True)
class RawMachineCode(Raw):
    """The counted machine code of one C++ kernel, per function and per source line."""

    key: Optional[str] = None
    graph: Optional[str] = None  # the compile id of the graph whose output code holds it (absent: none, or older)
    kernel: Optional[str] = None  # its name in that output code
    functions: Optional[dict[str, RawCounts]] = None
    lines: Optional[dict[str, RawCounts]] = None
    seconds: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class RawCapture(Raw):
    """What a call compiled (a variant's ``capture``, a function's ``recompiles``)."""

    mechanism: Optional[str] = None
    graphs: Optional[list[RawGraph]] = None
    breaks: Optional[list[RawBreak]] = None
    problems: Optional[list[str]] = None
    records: Optional[int] = None
    limits: Optional[list[Any]] = None
    decision_hooks: Optional[dict[str, str]] = None  # {decision kind: "recorded" or why not}
    machine_code: Optional[list[RawMachineCode]] = None


@dataclass(frozen=True, kw_only=True)
class RawEvent(Raw):
    """A profiled pass's launches of one kernel or library op (on ``threads``, in the thread-scaling pass), per call."""

    name: Optional[str] = None
    graph: Optional[str] = None
    threads: Optional[int] = None
    count: Optional[float] = None
    time_s: Optional[float] = None
    median_s: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class RawKernelTimes(Raw):
    """A profiled pass (``unprofiled_s``: the median of half as many calls around it, without the profiler;
    ``part_events``: {part of a call: the median of the profiler's events a call recorded there})."""

    mechanism: Optional[str] = None
    calls: Optional[int] = None
    total_s: Optional[float] = None
    unprofiled_s: Optional[float] = None
    graphs_s: Optional[float] = None
    regions_s: Optional[float] = None
    guards_s: Optional[float] = None
    part_events: Optional[dict[str, float]] = None
    events: Optional[list[RawEvent]] = None
    error: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawThreadScaling(RawKernelTimes):
    """The pass timing each C++ kernel on fewer threads: its events have ``threads``."""

    threads: Optional[int] = None
    specialised: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawArgument(Raw):
    """One argument of a program function's first call: its parameter's ``name``, ``type`` ("tensor", "ndarray",
    "float", "int", "bool", or its class's name) and, for an array, its ``shape`` and ``strides`` (in elements); for
    a tensor of a subclass not torch's (EvoTorch's ReadOnlyTensor), its class (``subclass``, module and name)."""

    name: Optional[str] = None
    type: Optional[str] = None
    shape: Optional[list[int]] = None
    strides: Optional[list[int]] = None
    subclass: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawCompile(Raw):
    """One call of a program's function that compiled (``kind``: first, recompile, or limit: torch hit its recompile
    limit and ran the frame eagerly; ``call`` None: its frame compiled inside another function's call)."""

    call: Optional[int] = None
    seconds: Optional[float] = None
    kind: Optional[str] = None
    compile_ids: Optional[list[str]] = None
    reasons: Optional[list[str]] = None


@dataclass(frozen=True, kw_only=True)
class RawStance(Raw):
    first: Optional[int] = None
    last: Optional[int] = None
    stance: Optional[str] = None
    eager: Optional[bool] = None


@dataclass(frozen=True, kw_only=True)
class RawFallback(Raw):
    call: Optional[int] = None
    guard: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawFallbacks(Raw):
    count: Optional[int] = None
    first: Optional[list[RawFallback]] = None


@dataclass(frozen=True, kw_only=True)
class RawReplay(Raw):
    """A program's function replayed after the program on copies of one steady call's arguments (``call``; their
    ``bytes``): its alternating rounds ``eager`` and ``compiled``, what the replay compiled (``compiles``, graphs) and
    took (``seconds``); ``why`` it was not measured; ``kernel_times``: a profiled pass of its compiled calls on the
    copies (medians of several calls, as a sample's variant's), which a page prefers to the run's one profiled
    call."""

    call: Optional[int] = None
    bytes: Optional[int] = None
    eager: Optional[list[RawRoundTiming]] = None
    compiled: Optional[list[RawRoundTiming]] = None
    compiles: Optional[int] = None
    seconds: Optional[float] = None
    why: Optional[str] = None
    kernel_times: Optional[RawKernelTimes] = None


@dataclass(frozen=True, kw_only=True)
class RawCallRun(Raw):
    """Consecutive calls of a program's function that torch ran one way (``kind``: first, recompile, limit, cached,
    eager, unknown), with the compile ids a compiling call made and the cached entry one ran (where told)."""

    first: Optional[int] = None
    last: Optional[int] = None
    kind: Optional[str] = None
    compile_ids: Optional[list[str]] = None
    entry: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawKinds(Raw):
    """How torch ran a program's function's calls: {kind: calls}, and the runs of them (the first ones kept)."""

    counts: Optional[dict[str, int]] = None
    runs: Optional[list[RawCallRun]] = None


@dataclass(frozen=True, kw_only=True)
class RawUntraced(Raw):
    call: Optional[int] = None
    why: Optional[str] = None  # recompile | limit | compiled
    guard: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawUntracedCalls(Raw):
    count: Optional[int] = None
    first: Optional[list[RawUntraced]] = None


@dataclass(frozen=True, kw_only=True)
class RawRun(Raw):
    """A program's function over the run."""

    calls: Optional[int] = None
    total_s: Optional[float] = None
    steady_calls: Optional[int] = None
    steady_s: Optional[float] = None
    compiles: Optional[list[RawCompile]] = None
    compiled_at: Optional[int] = None
    traced_call: Optional[int] = None
    profiled_call: Optional[int] = None
    stances: Optional[list[RawStance]] = None
    eager: Optional[RawTiming] = None
    fallbacks: Optional[RawFallbacks] = None
    wrappers: Optional[int] = None
    kinds: Optional[RawKinds] = None
    inside: Optional[dict[str, int]] = None
    compile_options: Optional[JSON] = None
    arguments: Optional[list[RawArgument]] = None
    untraced: Optional[RawUntracedCalls] = None
    other_methods: Optional[dict[str, int]] = None
    replay: Optional[RawReplay] = None


@dataclass(frozen=True, kw_only=True)
class RawVariant(Raw):
    """One variant (a sweep size's too; a program's function). ``rounds``: a sweep size's entries of its rounds."""

    id: Optional[str] = None
    index: Optional[int] = None
    function: Optional[str] = None
    kind: Optional[str] = None
    compiled: Optional[bool] = None
    device: Optional[str] = None
    preview: Optional[bool] = None
    family: Optional[str] = None
    code: Optional[RawCode] = None
    created: Optional[str] = None
    checked_against: Optional[str] = None
    calls: Optional[int] = None
    status: Optional[str] = None
    error: Optional[str] = None
    error_line: Optional[int] = None
    error_stage: Optional[str] = None
    error_detail: Optional[str] = None
    error_call: Optional[int] = None
    process: Optional[str] = None  # a program's function compiled in one of its child processes: that child's name
    internal_errors: Optional[list[RawError]] = None
    timing: Optional[RawTiming] = None
    load: Optional[RawLoad] = None
    measured_population: Optional[int] = None
    matches_reference: Optional[bool] = None
    mismatch: Any = None
    python_lines: Optional[list[RawPythonLine]] = None
    capture: Optional[RawCapture] = None
    recompiles: Optional[RawCapture] = None
    regions: Optional[RawRegions] = None
    sizes: Optional[list[RawSize]] = None
    kernel_times: Optional[RawKernelTimes] = None
    thread_scaling: Optional[RawThreadScaling] = None
    transfer: Optional[RawTransfer] = None
    launch_configs: Optional[JSON] = None
    peak_memory: Optional[RawPeakMemory] = None
    bounds: Optional[list[Any]] = None
    run: Optional[RawRun] = None
    rounds: Optional[list[RawRoundTiming]] = None
    warm: Optional[RawWarm] = None


@dataclass(frozen=True, kw_only=True)
class RawSweepPoint(Raw):
    population: Optional[int] = None
    variants: Optional[list[RawVariant]] = None


@dataclass(frozen=True, kw_only=True)
class RawRounds(Raw):
    """The alternating rounds: ``variants`` {id: [its rounds]}; ``warmup_s`` {id: seconds}."""

    session: Optional[str] = None
    runs: Optional[int] = None
    position: Optional[int] = None
    rounds: Optional[int] = None
    budget_s: Optional[float] = None
    warmup_s: Optional[dict[str, Any]] = None
    variants: Optional[dict[str, list[RawRoundTiming]]] = None


@dataclass(frozen=True, kw_only=True)
class RawTrial(Raw):
    id: Optional[str] = None
    variant: Optional[str] = None
    fix: Optional[str] = None
    kind: Optional[str] = None  # the kind of the fix it tried (a FixKind's value): a rewrite's run has none
    layout: Optional[str] = None
    config: Optional[list[Any]] = None
    compile_options: Optional[JSON] = None
    status: Optional[str] = None
    error: Optional[str] = None
    alone: Optional[bool] = None
    capture: Optional[RawCapture] = None
    timing: Optional[RawTiming] = None
    matches_variant: Optional[bool] = None
    mismatch: Any = None
    sizes: Optional[list[RawSize]] = None
    internal_errors: Optional[list[RawError]] = None
    rewrite: Optional[str] = None  # the id of the record's rewrite it runs (its ``rewrites``)
    compiled: Optional[bool] = None  # a rewrite run compiled (torch.compile on the CPU)
    numba: Optional[bool] = None  # a rewrite, or the Python variant, run under numba's @njit
    check: Optional[RawRewriteCheck] = None  # a rewrite's check against the code it replaces


@dataclass(frozen=True, kw_only=True)
class RawBranch(Raw):
    """A branch of the user's code a rewrite's check counts (``inspector.rewrite.Branch``)."""

    id: Optional[int] = None
    function: Optional[str] = None
    line: Optional[int] = None
    code: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawArm(Raw):
    branch: Optional[RawBranch] = None
    taken: Optional[bool] = None
    count: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawMismatch(Raw):
    individual: Optional[int] = None
    expected: Optional[str] = None
    got: Optional[str] = None
    raised: Optional[bool] = None
    differing: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawDrawn(Raw):
    """How a rewrite's check drew its individuals from a larger population (``inspector.rewrite.Drawn``)."""

    population: Optional[int] = None
    sample: Optional[int] = None
    witnesses: Optional[int] = None
    looked_at: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawRewriteCheck(Raw):
    """A rewrite against the user's code on the population, in the probe (``inspector.rewrite.Check``)."""

    target: Optional[str] = None
    entry: Optional[str] = None
    verdict: Optional[str] = None  # matched | failed
    unit: Optional[str] = None  # individuals | calls
    evaluations: Optional[int] = None
    rtol: Optional[float] = None
    mismatch: Optional[RawMismatch] = None
    error: Optional[str] = None
    arms: Optional[list[RawArm]] = None
    population_dtype: Optional[str] = None
    result_dtype: Optional[str] = None
    drawn: Optional[RawDrawn] = None  # None: every individual of the population was checked


@dataclass(frozen=True, kw_only=True)
class RawSpan(Raw):
    file: Optional[str] = None
    first: Optional[int] = None
    last: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawChange(Raw):
    kind: Optional[str] = None
    span: Optional[RawSpan] = None
    code: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawNote(Raw):
    topic: Optional[str] = None
    file: Optional[str] = None
    line: Optional[int] = None
    code: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawDeclined(Raw):
    target: Optional[str] = None
    construct: Optional[str] = None
    code: Optional[str] = None
    span: Optional[RawSpan] = None
    reason: Optional[str] = None
    detail: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawRewrite(Raw):
    """What inspector's rewriter wrote for one variant (``inspector.rewrite.Rewrite``, its fields under the same
    names), in inspector's own process: the code, what it replaces, how it may differ, and what it declined
    (``declined``; no ``source``: nothing was rewritten); the trials that ran it name it by ``id``."""

    id: Optional[str] = None  # "python-rewritten-numpy", "numpy-rewritten"
    variant: Optional[str] = None  # the variant it replaces
    target: Optional[str] = None  # the user's function
    kind: Optional[str] = None  # vectorized | breaks | port
    dialect: Optional[str] = None  # numpy | torch
    row: Optional[str] = None  # list | array | population: how the user's function takes its input
    entry: Optional[str] = None
    source: Optional[str] = None  # the new functions, whole
    imports: Optional[list[str]] = None
    diff: Optional[str] = None  # against the user's lines
    replaces: Optional[list[RawSpan]] = None
    changes: Optional[list[RawChange]] = None
    notes: Optional[list[RawNote]] = None
    branches: Optional[list[RawBranch]] = None
    functions: Optional[list[RawRenamed]] = None
    declined: Optional[list[RawDeclined]] = None
    check: Optional[RawRewriteCheck] = None  # a program's hot function's rewrite: its check (inspector run)


@dataclass(frozen=True, kw_only=True)
class RawRenamed(Raw):
    user: Optional[str] = None
    new: Optional[str] = None
    module: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawChild(Raw):
    """A multiprocessing child of a program: its name, pid, start method and exit status (None: it had not ended when
    the program did), and in the record whether its probe's account was read (``followed``) and its wall time."""

    name: Optional[str] = None
    pid: Optional[int] = None
    start_method: Optional[str] = None
    exit: Optional[int] = None
    followed: Optional[bool] = None
    wall_s: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class RawSite(Raw):
    """A place in the program's code: a function's call site, or a caller (its definition's line)."""

    file: Optional[str] = None
    line: Optional[int] = None
    function: Optional[str] = None
    calls: Optional[int] = None
    samples: Optional[int] = None  # a caller's: the run's samples that fell in a call it made here


@dataclass(frozen=True, kw_only=True)
class RawHotLine(Raw):
    """A line of a hot function the run's samples fell at (its own, not its callees'), the function not the
    program's it called that held the most of them (``into``, ``module.qualname``: a library's, Python's), and the
    innermost function the most of those were in (``within``: where the time itself was)."""

    line: Optional[int] = None
    samples: Optional[int] = None
    into: Optional[str] = None
    into_samples: Optional[int] = None
    within: Optional[str] = None
    within_samples: Optional[int] = None


@dataclass(frozen=True, kw_only=True)
class RawCaptured(Raw):
    """What one round of the program's calls gave a hot function (``inspector.probe.hotspots``): ``rows``
    individuals of ``genes`` genes (or one population of ``rows`` rows), copied from ``calls`` calls made at
    ``site``, ``via`` a loop, a comprehension, ``map``, ``np.apply_along_axis``; ``sampled``: not all of them."""

    rows: Optional[int] = None
    genes: Optional[int] = None
    calls: Optional[int] = None
    bytes: Optional[int] = None
    sampled: Optional[bool] = None
    sequence: Optional[str] = None  # list | tuple | array: what one individual was
    via: Optional[str] = None
    dtype: Optional[str] = None
    site: Optional[RawSite] = None


@dataclass(frozen=True, kw_only=True)
class RawExperimentRun(Raw):
    """One run of the experiment: ``as-written``, a rewrite (``numpy``, ``torch``) eager or compiled, or the function
    compiled as it stands (``compiled-cpu``); its first call, whether it gave the program's outputs, its rounds."""

    id: Optional[str] = None
    rewrite: Optional[str] = None
    compiled: Optional[bool] = None
    first_call_s: Optional[float] = None
    matches: Optional[bool] = None
    mismatch: Optional[str] = None
    error: Optional[str] = None
    rounds: Optional[list[RawRoundTiming]] = None


@dataclass(frozen=True, kw_only=True)
class RawExperiment(Raw):
    """The experiment on a hot function's captured inputs (``inspector.probe.experiment``): its rewrites (each with
    its check, or what it declined) and its runs; ``to_array``: a population of lists made an array alone (each
    rewrite's run does it at each call); ``why``: why it did not run (or stopped)."""

    rows: Optional[int] = None
    rewrites: Optional[list[RawRewrite]] = None
    runs: Optional[list[RawExperimentRun]] = None
    to_array: Optional[RawRoundTiming] = None
    seconds: Optional[float] = None
    why: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class RawHotspot(Raw):
    """One of the program's own functions holding much of the run's time (sampled): its samples and their share of
    all (``share``: its callees' included, and a hot line's own where it was found at that line), the time that
    share is of the run's wall time (``total_s``), the lines that called it, its own lines the samples fell at
    (``lines``); ``shape``: individual (called once per
    individual), population (a 2-D array in), neither (``why``), once, unknown (not watched: ``why``); what one
    round gave it (``captured``) and the experiment run on that (``experiment``)."""

    id: Optional[str] = None
    function: Optional[str] = None
    file: Optional[str] = None
    line: Optional[int] = None
    samples: Optional[int] = None
    share: Optional[float] = None
    total_s: Optional[float] = None
    callers: Optional[list[RawSite]] = None
    lines: Optional[list[RawHotLine]] = None
    rounds_sampled: Optional[int] = None  # the rounds of its calls a sample fell in (runs of samples finding it, or a
    #                                      line that calls it, running)
    round_gap_samples: Optional[float] = None  # the median number of samples between two of those rounds
    rounds_watched: Optional[int] = None  # the rounds inspector's call hook saw begin (not sampled: the sampler off)
    shape: Optional[str] = None
    why: Optional[str] = None
    captured: Optional[RawCaptured] = None
    experiment: Optional[RawExperiment] = None


@dataclass(frozen=True, kw_only=True)
class RawProgram(Raw):
    made_by: Optional[str] = None
    argv: Optional[list[str]] = None
    module: Optional[str] = None
    exit: Optional[int] = None
    wall_s: Optional[float] = None
    ended: Optional[str] = None
    outside: Optional[dict[str, Any]] = None
    try_fixes: Optional[bool] = None
    eager: Optional[dict[str, Any]] = None
    load: Optional[RawLoad] = None
    children: Optional[list[RawChild]] = None
    hotspots: Optional[list[RawHotspot]] = None  # the program's own functions holding the most time
    profile_problems: Optional[list[str]] = None  # what kept the profile of the program's time from being whole


@dataclass(frozen=True, kw_only=True)
class RawProbeMessages(Raw):
    """The probes' messages read (kept only where some were of a kind this version does not know:
    ``unknown_kinds`` {kind: count})."""

    read: Optional[int] = None
    unknown_kinds: Optional[dict[str, int]] = None


@dataclass(frozen=True, kw_only=True)
class RawRecord(Raw):
    """A whole record (docs/record.md)."""

    schema: Optional[str] = None
    inspector: Optional[str] = None
    created: Optional[str] = None
    kind: Optional[str] = None
    sample: Optional[RawSample] = None
    env: Optional[RawEnv] = None
    config: Optional[list[Any]] = None
    compile_options: Optional[JSON] = None
    files: Optional[dict[str, str]] = None
    redacted: Optional[bool] = None
    trace_dir: Optional[str] = None
    trace_logs: Optional[list[str]] = None
    reference: Optional[str] = None
    interrupted: Optional[bool] = None
    probe_restarts: Optional[int] = None
    probe_log: Optional[str] = None
    internal_errors: Optional[list[RawError]] = None
    probe_messages: Optional[RawProbeMessages] = None
    variants: Optional[list[RawVariant]] = None
    sweep: Optional[list[RawSweepPoint]] = None
    rounds: Optional[RawRounds] = None
    trials: Optional[list[RawTrial]] = None
    rewrites: Optional[list[RawRewrite]] = None
    program: Optional[RawProgram] = None
    job: Optional[str] = None  # the CI job that made it (inspector check --job), when one was named
