"""Per-kernel times of a compiled variant, and the machine's memory bandwidth (standard library, numpy, torch).

Kernel times come from a separate pass after the timed runs, so profiling never touches the table's
figures, and from the very code that was timed: on the CPU each generated kernel of the variant's loaded
output-code modules (found in Inductor's PyCodeCache by their source, which the capture holds) is timed with the
clock around each launch for the pass, then restored (a profiler range around each launch slowed the kernel itself
by up to 1.5x; the clock costs well under a microsecond); the profiler, on meanwhile, gives the compiled graphs',
Dynamo's and the guards' events. On CUDA the Triton kernels' device events carry their names. Every figure is the
median over the pass's calls of what one call spent: the first calls of a pass run slower while the CPU's threads
and caches warm up again.
"""

import bisect
import contextlib
import itertools
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, NamedTuple, Optional, Union, overload

import numpy as np
import torch
import torch._inductor.codecache
import torch._inductor.config

from inspector.probe.timing import measure, once

GRAPH_EVENT = "## Call CompiledFxGraph"  # the profiler event of one compiled graph's call
# torch >= 2.2: the event of a call into Dynamo's compiled code (its wrappers and the graph), and of the evaluation of
# a frame's cached guards before it (both absent from 2.1's profiles)
REGION_EVENT, GUARDS_EVENT = "Torch-Compiled Region", "TorchDynamo Cache Lookup"
CALL_RANGE = "inspector|call"  # the profiler range around each call of the pass
# an empty profiler range a graph's first timed launch under the profiler leaves in its graph's event:
# inspector|graph|<compile id>, so that the library calls that event holds get their graph
GRAPH_MARK = "inspector|graph|"
CPP_KERNEL = re.compile(r"^(\w+) = async_compile\.(?:cpp_pybinding|cpp)\(", re.M)
SPECIALISED = re.compile(r"#pragma omp parallel num_threads\(\d+\)")  # torch 2.1: the thread count compiled in
PROFILE_S = 0.2  # profiled seconds per variant (at least MIN_CALLS calls, at most MAX_CALLS)
MIN_CALLS, MAX_CALLS = 3, 50
WARM_S = 0.01  # seconds of calls before the calls timed without the profiler (_timed_calls)
COPY_BYTES = 256 * 2**20  # per array: well beyond the last-level cache
KINETO_LINES = (b"USDT:", b"STAGE:")  # what the profiler prints on stderr as it starts and stops


class Event(NamedTuple):
    """A profiler event: its name, microseconds, device, its parent's name ("" for none), the pass's call it was in
    (-1: none), and the part of the call its parent is in (``_part``), where the profiler's cost of recording it
    lands."""

    name: str
    us: float
    device: Any
    parent: str
    call: int
    part: str = "outside_graphs"


Call = Callable[[], object]
Graphs = list[dict[str, Any]]  # the variant's captured graphs, as the capture holds them
Key = tuple[str, Optional[str], Optional[int]]  # a kernel's events: (name, compile id, thread count)


@overload
def kernel_times(call: Call, sync: Call, graphs: Graphs, device: str, call_s: float,
                 threads: Optional[list[int]] = None, max_calls: int = MAX_CALLS,
                 later: Literal[False] = False) -> dict[str, Any]: ...


@overload
def kernel_times(call: Call, sync: Call, graphs: Graphs, device: str, call_s: float,
                 threads: Optional[list[int]] = None, max_calls: int = MAX_CALLS, *,
                 later: Literal[True]) -> Callable[[], dict[str, Any]]: ...


def kernel_times(call: Call, sync: Call, graphs: Graphs, device: str, call_s: float,
                 threads: Optional[list[int]] = None, max_calls: int = MAX_CALLS,
                 later: bool = False) -> Union[dict[str, Any], Callable[[], dict[str, Any]]]:
    """Seconds per call in each kernel and library call of the compiled graphs, plus the whole call.

    ``graphs``: the variant's captured graphs (their output code); ``call_s``: its median time; ``threads``: a
    list of OpenMP thread counts that each generated C++ kernel's launches take in turn (the same compiled code:
    only the kernel's own launch is changed, so Dynamo's guard on torch's thread count holds and nothing
    recompiles); its events are then per kernel and thread count, each with the median launch. ``max_calls``
    lowers the bound on the profiled calls (MAX_CALLS). ``later``: return a function that reads the events when
    called (a program's next calls then do not wait for it).
    """
    calls = int(min(MAX_CALLS, max_calls, max(MIN_CALLS, PROFILE_S / max(call_s, 1e-9))))
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    launches: list[Launch] = []
    wrapped = [] if device == "cuda" else _wrap_kernels(graphs, launches, threads)
    prof = None if threads else profile(activities=activities)  # launches on fewer threads: the clock's alone
    try:
        # calls without the profiler (the clock's launches only), half before the profiled ones and half after, so
        # that a drift of the machine's speed meanwhile is in both, each half after calls that warm up again: what
        # the profiler adds to a call
        unprofiled = max(MIN_CALLS, calls // 2) if wrapped and prof and calls > 1 else 0
        plain = _timed_calls(call, sync, unprofiled - unprofiled // 2)
        launches.clear()
        totals, ends = _profiled(prof, call, sync, calls, launches)
        plain += _timed_calls(call, sync, unprofiled // 2)
        del launches[ends[-1] if ends else 0:]
    finally:
        for module, name, kernel in wrapped:
            setattr(module, name, kernel)

    def read() -> dict[str, Any]:
        seen = _events(prof) if prof else []
        per_call = _per_call(seen, calls)
        events = _kernel_events(seen, per_call, device)
        _add_launches(events, launches, ends)
        around = {name: _median_of_calls(per_call, _outermost(name)) for name in (REGION_EVENT, GUARDS_EVENT)}
        graphs_s = _median_of_calls(per_call, lambda e: e.name.startswith(GRAPH_EVENT))
        recorded = [[e for e in in_call if e.name != CALL_RANGE] for in_call in per_call]
        return {"mechanism": "cuda_events" if device == "cuda" else "timed_kernels", "calls": calls,
                "total_s": statistics.median(totals), "graphs_s": graphs_s or None,
                **({"unprofiled_s": statistics.median(plain)} if plain else {}),
                **({"part_events": {part: statistics.median(sum(e.part == part for e in c) for c in recorded)
                                    for part in sorted({e.part for c in recorded for e in c})}} if prof else {}),
                **{key: around[name] for key, name in (("regions_s", REGION_EVENT), ("guards_s", GUARDS_EVENT))
                   if around[name]},
                "events": [{"name": e["name"], "graph": e["graph"], **({"threads": e["threads"]} if "threads" in e
                                                                        else {}),
                            "count": len(e["launches"]) / calls, "time_s": statistics.median(e["calls"]),
                            "median_s": statistics.median(e["launches"])} for e in events.values()]}
    return read if later else read()


def _timed_calls(call: Call, sync: Call, calls: int) -> list[float]:
    """The seconds of each of ``calls`` calls, after calls for WARM_S (one at least; none where ``calls`` is 0): the
    first calls after a pause (the profiler's start or stop, a sleep) run up to several times slower, for a few
    milliseconds."""
    if not calls:
        return []
    began = time.perf_counter()
    once(call, sync)
    while time.perf_counter() - began < WARM_S:
        once(call, sync)
    return [once(call, sync) for _ in range(calls)]


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Keep the profiler's start and stop lines (Kineto's "USDT: ... profiler_start", torch 2.1's "STAGE: ...
    Completed Stage: Warm Up", written on file descriptor 2) off the terminal; anything else written meanwhile
    still reaches stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            rest = [ln for ln in caught.read().splitlines(keepends=True) if not ln.startswith(KINETO_LINES)]
            if rest:
                os.write(2, b"".join(rest))


def thread_scaling(call: Call, sync: Call, graphs: Graphs, call_s: float, max_calls: int = MAX_CALLS) -> dict[str, Any]:
    """Each generated kernel's launches on torch's threads and on fewer (1, and powers of two below), taken in
    turn in one profiled pass so that both see the same machine; or why the kernels cannot run on fewer."""
    n = torch.get_num_threads()
    if n < 2:
        return {"threads": n, "specialised": None, "events": []}
    if any(SPECIALISED.search(code) for g in graphs for code in g.get("output_code") or []):
        return {"threads": n, "events": [], "specialised": (
            f"this torch compiles the thread count into its kernels (#pragma omp parallel num_threads({n})): on "
            "fewer threads they would be other kernels, compiled anew")}
    counts = [t for t in (1, 2, 4, 8) if t < n] + [n]
    return dict(kernel_times(call, sync, graphs, "cpu", call_s / len(counts), threads=counts, max_calls=max_calls),
                threads=n, specialised=None)


def regions(call: Call, sync: Call, calls: int = 3) -> Optional[dict[str, Any]]:
    """Per-call seconds inside compiled graphs and in the whole call (medians of the calls), from the profiler's
    graph events.

    The rest of the call ran as Python between graphs (the cost of graph breaks). None where this torch's
    profiler does not mark compiled graphs.
    """
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CPU])
    totals, _ = _profiled(prof, call, sync, calls)
    inside = _median_of_calls(_per_call(_events(prof), calls), lambda e: e.name.startswith(GRAPH_EVENT))
    return {"calls": calls, "total_s": statistics.median(totals), "graphs_s": inside} if inside else None


Launch = tuple[str, Optional[str], Optional[int], float]  # (kernel name, compile id, threads, seconds)


def _wrap_kernels(graphs: Graphs, launches: list[Launch], threads: Optional[list[int]] = None
                  ) -> list[tuple[ModuleType, str, Any]]:
    """Time each launch of the C++ kernels of the loaded modules whose source is a captured graph's output code into
    ``launches`` (their launches taking the OpenMP thread counts ``threads`` in turn, when given); return (module,
    name, kernel) to restore."""
    by_code = {code: g.get("compile_id") for g in graphs for code in g.get("output_code") or []}
    cache = torch._inductor.codecache.PyCodeCache
    modules = getattr(cache, "modules", None) or list(getattr(cache, "cache", {}).values())  # 2.13 / 2.1
    wrapped: list[tuple[ModuleType, str, Any]] = []
    marked: set[str] = set()
    for module in {id(m): m for m in modules}.values():
        try:
            with open(module.__file__, encoding="utf-8") as f:
                source = f.read()
        except (OSError, TypeError):
            continue
        if source not in by_code:
            continue
        for name in CPP_KERNEL.findall(source):
            kernel = getattr(module, name)
            setattr(module, name, _timed(kernel, name, by_code[source] or None, launches, marked, threads))
            wrapped.append((module, name, kernel))
    return wrapped


def _timed(kernel: Callable[..., Any], name: str, graph: Optional[str], launches: list[Launch],
           marked: set[str], threads: Optional[list[int]] = None) -> Callable[..., Any]:
    """``kernel`` with each launch's seconds appended to ``launches``; the first launch of its ``graph`` under the
    profiler, of all the kernels sharing ``marked``, followed by the graph's GRAPH_MARK (outside the clock)."""
    clock = time.perf_counter
    if not threads:
        def timed(*args: Any) -> Any:
            start = clock()
            out = kernel(*args)
            launches.append((name, graph, None, clock() - start))
            if graph is not None and graph not in marked and torch.autograd._profiler_enabled():
                marked.add(graph)
                with torch.profiler.record_function(GRAPH_MARK + graph):
                    pass
            return out
        return timed
    turns = itertools.cycle(threads)

    def in_turn(*args: Any) -> Any:  # the thread count is set outside the clock: it times the kernel alone
        usual, count = torch.get_num_threads(), next(turns)
        torch.set_num_threads(count)
        try:
            start = clock()
            out = kernel(*args)
            launches.append((name, graph, count, clock() - start))
            return out
        finally:
            torch.set_num_threads(usual)
    return in_turn


def _events(prof: Any) -> list[Event]:
    """The profiler's events as Events, read from its raw results: torch's own parse into FunctionEvents takes
    seconds for the tens of thousands of events of a profiled pass. A CPU event's parent is the innermost event of
    its thread whose time range holds it; its call, the pass's call (``CALL_RANGE``) whose range holds it (-1: none,
    as a device event)."""
    raw = prof.profiler.kineto_results.events()
    ns = bool(raw) and hasattr(raw[0], "start_ns")  # torch >= 2.2; 2.1 counts microseconds
    rows = [(e.start_thread_id(), *((e.start_ns() / 1e3, e.duration_ns() / 1e3) if ns else
                                    (e.start_us(), e.duration_us())), e.name(), e.device_type()) for e in raw]
    rows.sort(key=lambda r: (r[0], r[1], -r[2]))  # a parent before the children that start with it
    calls = sorted((start, start + us) for _, start, us, name, _ in rows if name == CALL_RANGE)
    stacks: dict[int, list[tuple[str, float]]] = {}
    out: list[Event] = []
    for thread, start, us, name, device in rows:
        if device != torch.autograd.DeviceType.CPU:
            out.append(Event(name, us, device, "", -1))
            continue
        stack = stacks.setdefault(thread, [])
        while stack and stack[-1][1] <= start:
            stack.pop()
        held = bisect.bisect_right(calls, (start, float("inf"))) - 1
        call = held if held >= 0 and start < calls[held][1] else -1
        out.append(Event(name, us, device, stack[-1][0] if stack else "", call, _part([n for n, _ in stack])))
        stack.append((name, start + us))
    return out


def _part(names: list[str]) -> str:
    """The part of a call (a ``TimeSplit`` field's stem) that the innermost of the enclosing events ``names``
    (outermost first) is in: a library call of a graph (an ``aten::`` event right under the graph's), the graph's
    wrapper, the guards, torch's wrappers (its compiled region), or outside."""
    for i in range(len(names) - 1, -1, -1):
        if names[i].startswith(GRAPH_EVENT):
            return "kernels" if i + 1 < len(names) and names[i + 1].startswith("aten::") else "wrapper"
        if names[i] == GUARDS_EVENT:
            return "guards"
        if names[i].startswith(REGION_EVENT):
            return "torch_wrappers"
    return "outside_graphs"


def _per_call(events: list[Event], calls: int) -> list[list[Event]]:
    """The CPU events of each of the pass's ``calls`` calls (their ranges), in order."""
    found: list[list[Event]] = [[] for _ in range(calls)]
    for e in events:
        if 0 <= e.call < calls:
            found[e.call].append(e)
    return found


def _median_of_calls(per_call: list[list[Event]], chosen: Callable[[Event], bool]) -> float:
    """The median over the calls of the seconds each spent in its ``chosen`` events (0.0: none anywhere)."""
    spent = [sum(e.us for e in events if chosen(e)) / 1e6 for events in per_call]
    return statistics.median(spent) if spent and any(spent) else 0.0


def _outermost(name: str) -> Callable[[Event], bool]:
    """Whether an event is one named ``name`` (a prefix) that no other such event holds."""
    return lambda e: e.name.startswith(name) and not e.parent.startswith(name)


def _kernel_events(events: list[Event], per_call: list[list[Event]], device: str) -> dict[Key, dict[str, Any]]:
    """{(name, graph, threads): {name, graph, launches: [seconds], calls: [seconds in each call]}} of the profiler's
    kernels: the device's (CUDA), and the library calls a compiled graph's wrapper made (``aten::`` events under its
    graph's event; the graph they belong to is its compile id where a GRAPH_MARK in that event says it)."""
    found: dict[Key, dict[str, Any]] = {}
    graph_of = {e.parent: e.name[len(GRAPH_MARK):] for e in events if e.name.startswith(GRAPH_MARK)}
    for i, in_call in enumerate(per_call):
        for e in in_call:
            if device != "cuda" and e.parent.startswith(GRAPH_EVENT) and e.name.startswith("aten::"):
                _add(found, e.name, graph_of.get(e.parent), None, e.us / 1e6, i, len(per_call))
    for e in events:
        if device == "cuda" and e.device != torch.autograd.DeviceType.CPU:
            _add(found, e.name, None, None, e.us / 1e6, None, len(per_call))
    return found


def _add_launches(found: dict[Key, dict[str, Any]], launches: list[Launch], ends: list[int]) -> None:
    """The clock's launches (``ends``: the number of launches when each call ended) added to ``found``."""
    call = 0
    for i, (name, graph, threads, seconds) in enumerate(launches):
        while call < len(ends) - 1 and i >= ends[call]:
            call += 1
        _add(found, name, graph, threads, seconds, call, len(ends))


def _add(found: dict[Key, dict[str, Any]], name: str, graph: Optional[str], threads: Optional[int],
         seconds: float, call: Optional[int], calls: int) -> None:
    """One launch of ``seconds`` in ``call`` (None: not known; its seconds are then spread over the calls)."""
    entry = found.setdefault((name, graph, threads), {"name": name, "graph": graph, "launches": [],
                                                      "calls": [0.0] * calls})
    if threads is not None:
        entry["threads"] = threads
    entry["launches"].append(seconds)
    if call is None:
        entry["calls"] = [t + seconds / calls for t in entry["calls"]]
    else:
        entry["calls"][call] += seconds


def bandwidth(cpu: Optional[str], threads: int, measure_now: bool = True) -> Optional[dict[str, Any]]:
    """The machine's memory bandwidth (bytes read + written per second of a large copy), cached per machine.

    The best of a NumPy copy (one thread) and torch's copy (its intra-op threads): the limit a generated
    kernel streaming its buffers could reach. ``cpu`` (model name) and ``threads`` key the cache. Without
    ``measure_now``, the cached figure or None.
    """
    key = f"{cpu} | {threads} threads"
    path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "inspector" / "bandwidth.json"
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        cache = {}
    if key in cache:
        return dict(cache[key], cached=True)
    if not measure_now:
        return None
    src = np.ones(COPY_BYTES // 8)
    dst = np.empty_like(src)
    t_src, t_dst = torch.from_numpy(src), torch.from_numpy(dst)
    best = min(measure(lambda: np.copyto(dst, src), budget_s=0.5)["min_s"],
               measure(lambda: t_dst.copy_(t_src), budget_s=0.5)["min_s"])
    result = {"gb_s": 2 * src.nbytes / best / 1e9, "bytes": 2 * src.nbytes, "machine": key,
              "method": "best of numpy.copyto and torch copy_ of 256 MiB", "measured": time.strftime("%Y-%m-%d")}
    cache[key] = result
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache, indent=1))
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only means measuring again next time
    return dict(result, cached=False)


def _profiled(prof: Optional[Any], call: Call, sync: Call, calls: int, launches: Optional[list[Launch]] = None
              ) -> tuple[list[float], list[int]]:
    """The seconds of each of ``calls`` calls under the profiler ``prof`` (None: none), started and stopped here (its
    chatter silenced), each in a ``CALL_RANGE``; and the number of ``launches`` when each call ended."""
    scope = getattr(torch._C._profiler, "_RecordFunctionFast", None) or torch.profiler.record_function
    totals, ends = [], []
    if prof is not None:
        with quiet_stderr():
            prof.start()
    try:
        for _ in range(calls):
            with scope(CALL_RANGE) if prof is not None else contextlib.nullcontext():
                totals.append(once(call, sync))
            ends.append(len(launches) if launches is not None else 0)
        return totals, ends
    finally:
        if prof is not None:
            with quiet_stderr():
                prof.stop()
