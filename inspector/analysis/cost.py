"""Where the time goes, from a record alone: kernel times joined to kernels and source lines, the bytes each
kernel moves and the bandwidth it reached against the machine's, and compile time by phase."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Optional

from inspector.model.lines import EAGER
from inspector.model import (CompilePhases, Kernel, KernelCost, LineStatus, Reason, ReasonKind, Scaled,
                             ThreadScaling, ThreadSpeedups, TimeSplit, Unprofiled)
from inspector.analysis.facts import Profiled
from inspector.raw import JSON

PAID = 1.1  # a parallel kernel this much faster on all threads than on one paid for its threads
PHASE_KEYS = ("dynamo_s", "aot_s", "inductor_s", "codegen_s", "build_s")


def phases(metrics: Sequence[tuple[JSON, Optional[str]]]) -> Optional[CompilePhases]:
    """Compile seconds split as torch reports them, summed over compiled frames (each one's metrics and what Inductor's
    FX graph cache did for it, as the trace names it), and cache outcomes."""
    if not metrics:
        return None
    total, cache = dict.fromkeys(PHASE_KEYS, 0.0), dict[str, int]()
    for m, outcome in metrics:
        if outcome:
            cache[outcome] = cache.get(outcome, 0) + 1
        reported: list[Optional[float]] = [m.get(k) for k in ("entire_frame_compile_time_s", "backend_compile_time_s",
                                                              "inductor_compile_time_s", "code_gen_time_s")]
        nested = [(m.get("triton_compile_time_us") or 0) / 1e6]
        for seconds in reversed(reported):  # a phase torch did not report (a cache hit) took no time
            nested.insert(0, seconds if seconds is not None else nested[0])
        for key, outer, inner in zip(PHASE_KEYS, nested, nested[1:] + [0.0]):
            total[key] += max(0.0, outer - inner)
    return CompilePhases(**total, total_s=sum(total.values()), cache=cache)


def _op(name: str) -> str:
    """One name for a library call in the wrapper (extern_kernels.mm, aten.mm.default) and the profiler (aten::mm)."""
    for prefix in ("aten::", "extern_kernels.", "aten."):
        if name.startswith(prefix):
            return name[len(prefix):].split(".")[0]
    return name


def costs(kernels: Sequence[Kernel], kt: Optional[Profiled], scaling: Optional[Profiled],
          bandwidth_gb_s: Optional[float], broken: bool = False, timed_s: Optional[float] = None,
          timed_apart: bool = False) -> tuple[list[Kernel], Optional[TimeSplit], Optional[ThreadScaling]]:
    """(``kernels``, each with what it cost, where a profiled call's time went, whether the parallel kernels paid for
    their threads): the profiled pass's events (``kt``) joined to the kernels by name (and by graph where an event
    knows it), the bytes each launch moves (``kernels.split`` read them from the wrapper) and the GB/s it reached
    against the machine's, and its launches on fewer threads than torch's (``scaling``). ``broken``: the function
    broke into graphs, and torch's compiled region then also holds the eager code between them: its wrappers are not
    told apart from that code (``TimeSplit.torch_wrappers_s`` None, their time outside the graphs). ``timed_s``: the
    call timed without the profiler (the probe's own first timing). The parts are set against the smaller of it and
    the pass's own calls without the profiler (``TimeSplit.call_s``): the same call, and noise or a warm-up after a
    pause only slow it down. ``timed_apart``: ``timed_s`` is of other arguments (a program's steady calls, the pass
    on copies of one call's), taken only where the pass has no calls without the profiler."""
    times, split = _kernel_times(kt, kernels, broken, timed_s, timed_apart)
    medians: dict[str, dict[int, float]] = {}  # {kernel id: {threads: median s per launch}}: a pass on fewer threads
    for e in (scaling.events or []) if scaling and not scaling.specialised else []:
        k = _kernel_of(e.name or "", e.graph, kernels) if e.threads else None
        if k is not None and e.threads and e.median_s is not None:
            medians.setdefault(k.id, {})[e.threads] = e.median_s
    total = kt.total_s if kt else None
    threads = scaling.threads if scaling else None
    costed = [replace(k, cost=_cost(times.get(k.id), total, _bytes(k), bandwidth_gb_s, medians.get(k.id, {}),
                                    threads)) for k in kernels]
    return costed, split, _scaling(scaling.threads or 1, scaling.specialised, costed) if scaling else None


def _bytes(kernel: Kernel) -> Optional[tuple[int, int]]:
    """(bytes read, bytes written) per launch of a kernel, where the splitter knew them (``kernels.split``)."""
    cost = kernel.cost
    return (cost.read_bytes, cost.written_bytes or 0) if cost.read_bytes is not None else None


def _cost(timed: Optional[tuple[float, float]], total_s: Optional[float], moved: Optional[tuple[int, int]],
          bandwidth_gb_s: Optional[float], threads_s: dict[int, float], threads: Optional[int]) -> KernelCost:
    """One kernel's KernelCost: ``timed`` (seconds per call over its launches, launches per call), ``moved`` (bytes
    read and written per launch), ``threads_s`` ({threads: median seconds per launch})."""
    time_s, launches = timed if timed else (None, None)
    read, written = moved if moved else (None, None)
    gb_s = (moved[0] + moved[1]) * launches / time_s / 1e9 if moved and time_s and launches else None
    paid = threads_s[1] / threads_s[threads] if threads and threads_s.get(1) and threads_s.get(threads) else None
    return KernelCost(time_s=time_s, launches_per_call=launches,
                      time_share=time_s / total_s if time_s is not None and total_s else None,
                      read_bytes=read, written_bytes=written, gb_s=gb_s,
                      bandwidth_fraction=gb_s / bandwidth_gb_s if gb_s is not None and bandwidth_gb_s else None,
                      threads_s=threads_s if paid else {}, thread_speedup=paid)


def _kernel_times(kt: Optional[Profiled], kernels: Sequence[Kernel], broken: bool, timed_s: Optional[float],
                  timed_apart: bool) -> tuple[dict[str, tuple[float, float]], Optional[TimeSplit]]:
    """({kernel id: (seconds per call over all its launches, launches per call)}, TimeSplit or None) of the profiled
    pass, set against the call without the profiler (``costs``)."""
    if not kt or not kt.events:
        return {}, (TimeSplit(error=kt.error) if kt and kt.error else None)
    times: dict[str, tuple[float, float]] = {}
    unmatched = []
    for e in kt.events:
        found = _kernel_of(e.name or "", e.graph, kernels)
        if found is None:
            unmatched.append(e.name or "")
            continue
        time_s, count = times.get(found.id, (0.0, 0))
        times[found.id] = (time_s + (e.time_s or 0.0), count + (e.count or 0))
    total, kernels_s, graphs_s = kt.total_s or 0.0, sum(e.time_s or 0.0 for e in kt.events), kt.graphs_s
    torch_wrappers = max(0.0, kt.regions_s - graphs_s) if kt.regions_s and graphs_s and not broken else None
    inside = (graphs_s or 0.0) + (torch_wrappers or 0.0) + (kt.guards_s or 0.0)
    split = TimeSplit(total_s=kt.total_s, kernels_s=kernels_s, calls=kt.calls, mechanism=kt.mechanism,
                      wrapper_s=max(0.0, graphs_s - kernels_s) if graphs_s else None,
                      outside_graphs_s=max(0.0, total - inside) if graphs_s else None, unmatched=unmatched,
                      torch_wrappers_s=torch_wrappers, guards_s=kt.guards_s if graphs_s else None,
                      call_s=((kt.unprofiled_s or timed_s) if timed_apart else min(
                          (s for s in (kt.unprofiled_s, timed_s) if s), default=None)) if kt.total_s else None)
    held = {part: 0.0 for part in ("kernels", "wrapper", "torch_wrappers", "guards", "outside_graphs")}
    for part, n in (kt.part_events or {}).items():  # a part the split folds into the rest: its events with it
        held["outside_graphs" if part not in held or getattr(split, f"{part}_s") is None else part] += n
    return times, replace(split, without_profiler=_unprofiled(split, held))


def _unprofiled(split: TimeSplit, held: dict[str, float]) -> Optional[Unprofiled]:
    """The parts of ``split`` less the profiler's own cost, spread over the events the profiler recorded in each
    part of a call (``held``: {part: events}); None where the call timed without the profiler is not the shorter,
    or no event was counted."""
    gap = (split.total_s or 0.0) - (split.call_s or 0.0)
    count = sum(held.values())
    if not split.call_s or gap <= 0 or not count:
        return None
    each = gap / count

    def less(part: str, s: Optional[float]) -> Optional[float]:
        return None if s is None else max(0.0, s - held[part] * each)
    return Unprofiled(events=count, per_event_s=each, kernels_s=less("kernels", split.kernels_s),
                      wrapper_s=less("wrapper", split.wrapper_s),
                      torch_wrappers_s=less("torch_wrappers", split.torch_wrappers_s),
                      guards_s=less("guards", split.guards_s), outside_graphs_s=less("outside_graphs",
                                                                                    split.outside_graphs_s))


def _kernel_of(name: str, graph: Optional[str], kernels: Sequence[Kernel]) -> Optional[Kernel]:
    """The one kernel a profiler event's ``name`` names (and its ``graph``, where the event knows it), or None."""
    found = [k for k in kernels if _op(k.name) == _op(name)]
    found = [k for k in found if k.graph == graph] or found
    return found[0] if len(found) == 1 else None


def _scaling(n: int, specialised: Optional[str], kernels: Sequence[Kernel]) -> Optional[ThreadScaling]:
    """Whether the parallel ``kernels`` (their costs' ``threads_s``) ran faster on torch's ``n`` threads than on one
    (``specialised``: why the pass on fewer threads could not run: the count was compiled in)."""
    if specialised:
        return ThreadScaling(n, [], None, specialised, None)
    parallel = [k for k in kernels if k.parallel and k.cost.thread_speedup]
    if not parallel:
        return None
    points = [(t, sum(k.cost.threads_s[t] * (k.cost.launches_per_call or 1) for k in parallel))
              for t in sorted(set.intersection(*(set(k.cost.threads_s) for k in parallel)))]
    speedup = points[0][1] / points[-1][1]
    scaled = Scaled.FASTER if speedup >= PAID else Scaled.SLOWER if speedup < 1 / PAID else Scaled.SAME
    return ThreadScaling(n, points, speedup, None, scaled)


def heat(status: Optional[LineStatus], kernel_ids: Sequence[str], kernels: Sequence[Kernel],
         split: Optional[TimeSplit]) -> tuple[Optional[float], Optional[float]]:
    """(seconds per call, share of the call) of a line: the time of the kernels it ran in (each kernel's whole
    time), or for a line that ran eagerly the time outside compiled graphs; (None, None) where not profiled."""
    if not split:
        return None, None
    times = {k.id: k.cost.time_s for k in kernels if k.cost.time_s is not None}
    mine = [times[k] for k in kernel_ids if k in times]
    t = split.outside_graphs_s if status in EAGER else sum(mine) if mine else None
    return t, t / split.total_s if t is not None and split.total_s else None


def thread_reasons(status: Optional[LineStatus], kernel_ids: Sequence[str], by_id: dict[str, Kernel],
                   threads: Optional[ThreadScaling]) -> list[Reason]:
    """Whether running a parallel line's kernels in parallel paid, from the passes on 1 thread."""
    if not threads or not threads.speedup or status != LineStatus.PARALLEL:
        return []
    mine = [by_id[i] for i in kernel_ids if i in by_id and by_id[i].parallel and by_id[i].cost.thread_speedup]
    if not mine:
        return []
    said = ThreadSpeedups(threads.threads, tuple((k.name, k.cost.thread_speedup or 0.0) for k in mine))
    paid = all((k.cost.thread_speedup or 0) >= PAID for k in mine)
    return [Reason(ReasonKind.PARALLEL_PAID if paid else ReasonKind.PARALLEL_DID_NOT_PAY, said)]
