"""Where the time goes, from a record alone: kernel times joined to kernels and source lines, the bytes each
kernel moves and the bandwidth it reached against the machine's, and compile time by phase."""

import re
from dataclasses import replace

from inspector.analysis.parse import wrapper
from inspector.model import Backend, CompilePhases, LineStatus, Reason, ThreadScaling, TimeSplit

CPP_PARAMS = re.compile(r'extern "C"[^(]*\(([^)]*)\)')
TRITON_SIGNATURE = re.compile(r"""['"]signature['"]:\s*\{([^}]*)\}""")
TRITON_PARAM = re.compile(r"""['"](\w+)['"]:\s*['"]([^'"]*)['"]""")
ITEMSIZE = {"double": 8, "float": 4, "int64_t": 8, "long": 8, "int32_t": 4, "int": 4, "int16_t": 2, "int8_t": 1,
            "uint8_t": 1, "signed char": 1, "unsigned char": 1, "char": 1, "short": 2, "bool": 1, "half": 2, "bfloat16": 2, "fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2,
            "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "i1": 1}
EAGER = ("eager", "graph-break")
PAID = 1.1  # a parallel kernel this much faster on all threads than on one paid for its threads
PHASE_KEYS = ("dynamo_s", "aot_s", "inductor_s", "codegen_s", "build_s")


def phases(graphs):
    """Compile seconds split as torch reports them, summed over the (raw) graphs, and cache outcomes."""
    graphs = [g for g in graphs if g.metrics]
    if not graphs:
        return None
    total, cache = dict.fromkeys(PHASE_KEYS, 0.0), {}
    for g in graphs:
        if g.fx_graph_cache:
            cache[g.fx_graph_cache] = cache.get(g.fx_graph_cache, 0) + 1
        m = g.metrics
        nested = [m.get(k) for k in ("entire_frame_compile_time_s", "backend_compile_time_s",
                                     "inductor_compile_time_s", "code_gen_time_s")]
        nested.append((m.get("triton_compile_time_us") or 0) / 1e6)
        for i in range(len(nested) - 2, -1, -1):  # a phase torch did not report (a cache hit) took no time
            nested[i] = nested[i] if nested[i] is not None else nested[i + 1]
        for key, outer, inner in zip(PHASE_KEYS, nested, nested[1:] + [0.0]):
            total[key] += max(0.0, outer - inner)
    return CompilePhases(**total, total_s=sum(total.values()), cache=cache)


def _op(name):
    """One name for a library call in the wrapper (extern_kernels.mm, aten.mm.default) and the profiler (aten::mm)."""
    for prefix in ("aten::", "extern_kernels.", "aten."):
        if name.startswith(prefix):
            return name[len(prefix):].split(".")[0]
    return name


def kernel_times(kt, kernels):
    """(TimeSplit or None, kernels with ``cost.time_s``, ``launches_per_call``, ``time_share``): the profiled
    pass's events (``kt``: the variant's RawKernelTimes) joined to the kernels by name, and by graph where the event
    knows it."""
    if not kt or not kt.events:
        return (TimeSplit(error=kt.error) if kt and kt.error else None), kernels
    times, unmatched = {}, []
    for e in kt.events:
        found = _kernel_of(e, kernels)
        if found is None:
            unmatched.append(e.name)
            continue
        time_s, count = times.get(found.id, (0.0, 0))
        times[found.id] = (time_s + e.time_s, count + e.count)
    total = kt.total_s
    kernels = [replace(k, cost=replace(k.cost, time_s=times[k.id][0], launches_per_call=times[k.id][1],
                                       time_share=times[k.id][0] / total if total else None))
               if k.id in times else k for k in kernels]
    kernels_s = sum(e.time_s for e in kt.events)
    graphs_s = kt.graphs_s
    return TimeSplit(total_s=total, kernels_s=kernels_s, calls=kt.calls, mechanism=kt.mechanism,
                     wrapper_s=max(0.0, graphs_s - kernels_s) if graphs_s else None,
                     outside_graphs_s=max(0.0, total - graphs_s) if graphs_s else None, unmatched=unmatched), kernels


def _kernel_of(event, kernels):
    """The one kernel a profiler event names (by name, and by graph where the event knows it), or None."""
    found = [k for k in kernels if _op(k.name) == _op(event.name)]
    found = [k for k in found if k.graph == event.graph] or found
    return found[0] if len(found) == 1 else None


def with_traffic(graphs, kernels, bandwidth_gb_s):
    """Kernels with the bytes they read and write per launch (their buffers' sizes and dtypes, from the
    wrapper) and, where timed, the GB/s they reached and its fraction of the machine's bandwidth."""
    moved = {}
    for g in graphs:
        mine = {k.name: k for k in kernels if k.graph == g.compile_id and k.generated}
        for code in g.output_code or []:
            for name, sizes in traffic(code, mine).items():
                moved[mine[name].id] = sizes
    out = []
    for k in kernels:
        if k.id in moved:
            read, written = moved[k.id]
            c = replace(k.cost, read_bytes=read, written_bytes=written)
            if c.time_s and c.launches_per_call:
                gb_s = (read + written) * c.launches_per_call / c.time_s / 1e9
                c = replace(c, gb_s=gb_s, bandwidth_fraction=gb_s / bandwidth_gb_s if bandwidth_gb_s else None)
            k = replace(k, cost=c)
        out.append(k)
    return out


def traffic(output_code, kernels):
    """{kernel name: (bytes read, bytes written) per launch} for the launches in ``call`` whose sizes are known.

    ``kernels``: {name: Kernel}. Sizes come from the wrapper (see parse.wrapper.launches); dtypes from the
    kernel's parameters.
    """
    try:
        tree = wrapper.parse(output_code)
    except wrapper.WrapperError:
        return {}
    found = {}
    for call in wrapper.launches(tree, set(kernels))[0]:
        if call.name in kernels and call.name not in found:
            bytes_moved = _moved(_params(kernels[call.name]), call.numels)
            if bytes_moved:
                found[call.name] = bytes_moved
    return found


def _params(kernel):
    """[(parameter name, item size or None)] of a cpp or Triton kernel, in launch-argument order."""
    if kernel.backend == Backend.TRITON:
        signature = TRITON_SIGNATURE.search(kernel.code)
        items = TRITON_PARAM.findall(signature.group(1)) if signature else []
        return [(name, ITEMSIZE.get(kind.lstrip("*")) if kind.startswith("*") else None) for name, kind in items]
    signature = CPP_PARAMS.search(kernel.code)
    params = []
    for p in signature.group(1).split(",") if signature else []:
        words = re.findall(r"\w+", p)
        kind = re.sub(r"\b(const|at|c10|std)\b|::|\*", " ", p.rsplit(words[-1], 1)[0]).split() if words else []
        params.append((words[-1] if words else "", ITEMSIZE.get(" ".join(kind).lower()) if "*" in p else None))
    return params


def _moved(params, sizes):
    """(bytes read, bytes written) of one launch; None when a pointer's size or dtype is unknown."""
    read = written = 0
    for (name, itemsize), n in zip(params, sizes):
        role = re.match(r"(in_out|in|out)_ptr\d+$", name)
        if not role:
            continue
        if itemsize is None or n is None:
            return None
        read += n * itemsize if role.group(1) in ("in", "in_out") else 0
        written += n * itemsize if role.group(1) in ("out", "in_out") else 0
    return (read, written) if read or written else None


def thread_scaling(scaling, kernels):
    """(ThreadScaling or None, kernels with ``threads_s`` and ``thread_speedup``) from the probe's pass whose
    kernel launches took torch's thread count and fewer in turn (``scaling``: the variant's RawThreadScaling)."""
    if not scaling:
        return None, kernels
    n = scaling.threads
    if scaling.specialised:
        return ThreadScaling(n, [], None, scaling.specialised, scaling.specialised), kernels
    medians = {}
    for e in scaling.events or []:
        k = _kernel_of(e, kernels) if e.threads else None
        if k is not None:
            medians.setdefault(k.id, {})[e.threads] = e.median_s
    kernels = [replace(k, cost=replace(k.cost, threads_s=medians[k.id], thread_speedup=medians[k.id][1] / medians[
        k.id][n])) if medians.get(k.id, {}).get(1) and medians[k.id].get(n) else k for k in kernels]
    parallel = [k for k in kernels if k.parallel and k.cost.thread_speedup]
    if not parallel:
        return None, kernels
    points = [[t, sum(k.cost.threads_s[t] * (k.cost.launches_per_call or 1) for k in parallel)]
              for t in sorted(set.intersection(*(set(k.cost.threads_s) for k in parallel)))]
    speedup = points[0][1] / points[-1][1]
    return ThreadScaling(n, points, speedup, None, _scaling_text(n, speedup)), kernels


def _scaling_text(n, speedup):
    if speedup >= PAID:
        return f"its parallel kernels ran {speedup:.1f}x faster on {n} threads than on 1: parallel paid"
    if speedup < 1 / PAID:
        return (f"its parallel kernels ran {1 / speedup:.1f}x slower on {n} threads than on 1: threads waiting for "
                "busy cores, or too little work per thread for OpenMP to pay")
    return f"its parallel kernels ran about as fast on {n} threads as on 1 ({speedup:.2f}x): parallel did not pay"


def with_heat(lines, kernels, split):
    """Lines with the seconds per call of the kernels they ran in (each kernel's whole time), or of the time
    outside compiled graphs for lines that ran eagerly, and that time's share of the call."""
    if not split:
        return lines
    times = {k.id: k.cost.time_s for k in kernels if k.cost.time_s is not None}
    out = []
    for e in lines:
        mine = [times[k] for k in e.kernels if k in times]
        t = split.outside_graphs_s if e.status in EAGER else sum(mine) if mine else None
        out.append(replace(e, time_s=t, time_share=t / split.total_s if t is not None and split.total_s else None))
    return out


def with_thread_reasons(lines, kernels, threads):
    """Parallel lines with whether running their kernels in parallel paid, from the passes on 1 thread."""
    if not threads or not threads.speedup:
        return lines
    by_id = {k.id: k for k in kernels}
    out = []
    for e in lines:
        mine = [by_id[i] for i in e.kernels if i in by_id and by_id[i].parallel and by_id[i].cost.thread_speedup]
        if e.status == LineStatus.PARALLEL and mine:
            said = ", ".join(f"{k.name} {k.cost.thread_speedup:.2f}x" for k in mine)
            paid = all(k.cost.thread_speedup >= PAID for k in mine)
            e = replace(e, why=e.why + [Reason("parallel-paid" if paid else "parallel-did-not-pay", (
                f"parallel paid: on {threads.threads} threads against 1, {said} faster" if paid else
                f"parallel did not pay: on {threads.threads} threads against 1, {said} faster (below 1x: slower)"))])
        out.append(e)
    return out
