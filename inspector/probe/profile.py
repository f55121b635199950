"""Per-kernel times of a compiled variant, and the machine's memory bandwidth (standard library, numpy, torch).

Kernel times come from a separate pass after the timed runs, so profiling never touches the table's
figures, and from the very code that was timed: on the CPU each generated kernel of the variant's loaded
output-code modules (found in Inductor's PyCodeCache by their source, which the capture holds) is wrapped in
a profiler range for the pass, then restored; on CUDA the Triton kernels' device events carry their names.
"""

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
RANGE = "inspector|"  # profiler range of a wrapped kernel: inspector|<compile id>|<kernel name>
CPP_KERNEL = re.compile(r"^(\w+) = async_compile\.(?:cpp_pybinding|cpp)\(", re.M)
SPECIALISED = re.compile(r"#pragma omp parallel num_threads\(\d+\)")  # torch 2.1: the thread count compiled in
PROFILE_S = 0.2  # profiled seconds per variant (at least MIN_CALLS calls, at most MAX_CALLS)
MIN_CALLS, MAX_CALLS = 3, 50
COPY_BYTES = 256 * 2**20  # per array: well beyond the last-level cache
KINETO_LINES = (b"USDT:", b"STAGE:")  # what the profiler prints on stderr as it starts and stops


class Event(NamedTuple):
    """A profiler event: its name, microseconds, device, and its parent's name ("" for none)."""

    name: str
    us: float
    device: Any
    parent: str


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
    wrapped = [] if device == "cuda" else _wrap_kernels(graphs, threads)
    prof = profile(activities=activities)
    try:
        total = _profiled(prof, call, sync, calls)
    finally:
        for module, name, kernel in wrapped:
            setattr(module, name, kernel)

    def read() -> dict[str, Any]:
        seen = _events(prof)
        events, graphs_us = _kernel_events(seen, device)
        around = {name: sum(e.us for e in seen if e.name.startswith(name) and not e.parent.startswith(name))
                  for name in (REGION_EVENT, GUARDS_EVENT)}
        return {"mechanism": "cuda_events" if device == "cuda" else "wrapped_kernels", "calls": calls,
                "total_s": total / calls, "graphs_s": graphs_us / 1e6 / calls if graphs_us else None,
                **{key: around[name] / 1e6 / calls for key, name in (("regions_s", REGION_EVENT),
                                                                       ("guards_s", GUARDS_EVENT)) if around[name]},
                "events": [dict(e, count=len(e["us"]) / calls, time_s=sum(e["us"]) / 1e6 / calls,
                                median_s=statistics.median(e.pop("us")) / 1e6) for e in events.values()]}
    return read if later else read()


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
    """Per-call seconds inside compiled graphs and in the whole call, from the profiler's graph events.

    The rest of the call ran as Python between graphs (the cost of graph breaks). None where this torch's
    profiler does not mark compiled graphs.
    """
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CPU])
    total = _profiled(prof, call, sync, calls)
    inside = sum(e.us for e in _events(prof) if e.name.startswith(GRAPH_EVENT)) / 1e6
    return {"calls": calls, "total_s": total / calls, "graphs_s": inside / calls} if inside else None


def _wrap_kernels(graphs: Graphs, threads: Optional[list[int]] = None) -> list[tuple[ModuleType, str, Any]]:
    """Wrap the C++ kernels of the loaded modules whose source is a captured graph's output code in profiler
    ranges (their launches taking the OpenMP thread counts ``threads`` in turn, when given); return (module,
    name, kernel) to restore."""
    by_code = {code: g.get("compile_id") for g in graphs for code in g.get("output_code") or []}
    cache = torch._inductor.codecache.PyCodeCache
    modules = getattr(cache, "modules", None) or list(getattr(cache, "cache", {}).values())  # 2.13 / 2.1
    wrapped = []
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
            setattr(module, name, _ranged(kernel, f"{RANGE}{by_code[source] or ''}|{name}", threads))
            wrapped.append((module, name, kernel))
    return wrapped


def _ranged(kernel: Callable[..., Any], label: str, threads: Optional[list[int]] = None) -> Callable[..., Any]:
    # the C++ range (torch >= 2.2) costs about 1 µs a launch, record_function about 10
    scope = getattr(torch._C._profiler, "_RecordFunctionFast", None) or torch.profiler.record_function
    if not threads:
        def ranged(*args: Any) -> Any:
            with scope(label):
                return kernel(*args)
        return ranged
    turns = itertools.cycle(threads)

    def in_turn(*args: Any) -> Any:  # the thread count is set outside the range: the range times the kernel alone
        usual, count = torch.get_num_threads(), next(turns)
        torch.set_num_threads(count)
        try:
            with scope(f"{label}|{count}"):
                return kernel(*args)
        finally:
            torch.set_num_threads(usual)
    return in_turn


def _events(prof: Any) -> list[Event]:
    """The profiler's events as Events, read from its raw results: torch's own parse into FunctionEvents takes
    seconds for the tens of thousands of events of a profiled pass. A CPU event's parent is the innermost event of
    its thread whose time range holds it."""
    raw = prof.profiler.kineto_results.events()
    ns = bool(raw) and hasattr(raw[0], "start_ns")  # torch >= 2.2; 2.1 counts microseconds
    rows = [(e.start_thread_id(), *((e.start_ns() / 1e3, e.duration_ns() / 1e3) if ns else
                                    (e.start_us(), e.duration_us())), e.name(), e.device_type()) for e in raw]
    rows.sort(key=lambda r: (r[0], r[1], -r[2]))  # a parent before the children that start with it
    stacks: dict[int, list[tuple[str, float]]] = {}
    out: list[Event] = []
    for thread, start, us, name, device in rows:
        if device != torch.autograd.DeviceType.CPU:
            out.append(Event(name, us, device, ""))
            continue
        stack = stacks.setdefault(thread, [])
        while stack and stack[-1][1] <= start:
            stack.pop()
        out.append(Event(name, us, device, stack[-1][0] if stack else ""))
        stack.append((name, start + us))
    return out


def _kernel_events(events: list[Event], device: str) -> tuple[dict[Key, dict[str, Any]], float]:
    """({(name, graph, threads): {name, graph, threads, us: [per launch]}}, microseconds in compiled graphs) from
    profiler events."""
    graph_of = {}  # compiled graph event name -> compile id, learnt from its kernels' events
    found: dict[Key, dict[str, Any]] = {}
    library: list[tuple[str, str, float]] = []
    graphs_us = 0.0
    for e in events:
        parent = e.parent
        if e.name.startswith(GRAPH_EVENT):
            graphs_us += e.us
        elif device == "cuda" and e.device != torch.autograd.DeviceType.CPU:
            _add(found, e.name, None, None, e.us)
        elif e.name.startswith(RANGE):
            _, graph, name, *count = e.name.split("|")
            graph_of[parent] = graph or None
            _add(found, name, graph or None, int(count[0]) if count else None, e.us)
        elif device != "cuda" and parent.startswith(GRAPH_EVENT) and e.name.startswith("aten::"):
            library.append((e.name, parent, e.us))  # a library call made by the wrapper
    for name, parent, us in library:
        _add(found, name, graph_of.get(parent), None, us)
    return found, graphs_us


def _add(found: dict[Key, dict[str, Any]], name: str, graph: Optional[str], threads: Optional[int],
         us: float) -> None:
    entry = found.setdefault((name, graph, threads), {"name": name, "graph": graph, "us": []})
    if threads is not None:
        entry["threads"] = threads
    entry["us"].append(us)


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


def _profiled(prof: Any, call: Call, sync: Call, calls: int) -> float:
    """Seconds of ``calls`` calls under the profiler ``prof``, started and stopped here (its chatter silenced)."""
    with quiet_stderr():
        prof.start()
    try:
        return sum(once(call, sync) for _ in range(calls))
    finally:
        with quiet_stderr():
            prof.stop()
