"""Where the time goes, from a record alone: kernel times joined to kernels and source lines, the bytes each
kernel moves and the bandwidth it reached against the machine's, and compile time by phase."""

import ast
import math
import re

from inspector.analysis.kernels import _call_name

CPP_PARAMS = re.compile(r'extern "C"[^(]*\(([^)]*)\)')
TRITON_SIGNATURE = re.compile(r"""['"]signature['"]:\s*\{([^}]*)\}""")
TRITON_PARAM = re.compile(r"""['"](\w+)['"]:\s*['"]([^'"]*)['"]""")
ITEMSIZE = {"double": 8, "float": 4, "int64_t": 8, "long": 8, "int32_t": 4, "int": 4, "int16_t": 2, "int8_t": 1,
            "uint8_t": 1, "bool": 1, "half": 2, "bfloat16": 2, "fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2,
            "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "i1": 1}
EAGER = ("eager", "graph-break")


def apply(record):
    """Fill the cost keys of every variant (in place): ``compile_phases``, ``time_split``, and per kernel
    ``time_s``, ``launches``, ``time_share``, ``read_bytes``, ``written_bytes``, ``gb_s``,
    ``bandwidth_fraction``; per line ``time_s`` and ``time_share``."""
    limit = (record["env"].get("memory_bandwidth") or {}).get("gb_s")
    for v in record["variants"]:
        v["compile_phases"] = phases(v)
        v["time_split"] = _join_times(v)
        _traffic(v, limit)
        _heat(v)


def sweep_entry(record):
    """One size of a population sweep, from its analysed record: each variant's timings and speedups."""
    keys = ("median_s", "min_s", "max_s", "per_population_s", "first_call_s", "compile_s")
    return {"population": record["sample"]["population"], "variants": [
        {"id": v["id"], "kind": v["kind"], "compiled": v.get("compiled"), "device": v["device"], "status": v["status"],
         "timing": {k: (v.get("timing") or {}).get(k) for k in keys} if v.get("timing") else None,
         **{k: v.get(k) for k in ("speedup_vs_python", "speedup_vs_numpy", "break_even_calls")}}
        for v in record["variants"]]}


def phases(v):
    """Compile seconds split as torch reports them, summed over the variant's graphs, and cache outcomes."""
    graphs = [g for g in (v.get("capture") or {}).get("graphs") or [] if g.get("metrics")]
    if not graphs:
        return None
    total, cache = dict.fromkeys(("dynamo_s", "aot_s", "inductor_s", "codegen_s", "build_s"), 0.0), {}
    for g in graphs:
        if g.get("fx_graph_cache"):
            cache[g["fx_graph_cache"]] = cache.get(g["fx_graph_cache"], 0) + 1
        m = g["metrics"]
        nested = [m.get(k) for k in ("entire_frame_compile_time_s", "backend_compile_time_s",
                                     "inductor_compile_time_s", "code_gen_time_s")]
        nested.append((m.get("triton_compile_time_us") or 0) / 1e6)
        for i in range(len(nested) - 2, -1, -1):  # a phase torch did not report (a cache hit) took no time
            nested[i] = nested[i] if nested[i] is not None else nested[i + 1]
        for key, outer, inner in zip(total, nested, nested[1:] + [0.0]):
            total[key] += max(0.0, outer - inner)
    return dict(total, total_s=sum(total.values()), cache=cache)


def _op(name):
    """One name for a library call in the wrapper (extern_kernels.mm, aten.mm.default) and the profiler (aten::mm)."""
    for prefix in ("aten::", "extern_kernels.", "aten."):
        if name.startswith(prefix):
            return name[len(prefix):].split(".")[0]
    return name


def _join_times(v):
    """Join the profiled pass's events to the kernels (by name, and by graph where the event knows it)."""
    kt = v.get("kernel_times") or {}
    if not kt.get("events"):
        return {"error": kt["error"]} if kt.get("error") else None
    unmatched = []
    for e in kt["events"]:
        found = [k for k in v["kernels"] if _op(k["name"]) == _op(e["name"])]
        same_graph = [k for k in found if k["graph"] == e.get("graph")]
        found = same_graph or found
        if len(found) != 1:
            unmatched.append(e["name"])
            continue
        k = found[0]
        k["time_s"] = k.get("time_s", 0.0) + e["time_s"]
        k["launches"] = k.get("launches", 0) + e["count"]
    total = kt["total_s"]
    for k in v["kernels"]:
        k["time_share"] = k["time_s"] / total if k.get("time_s") is not None and total else None
    kernels_s = sum(e["time_s"] for e in kt["events"])
    graphs_s = kt.get("graphs_s")
    return {"total_s": total, "kernels_s": kernels_s, "calls": kt["calls"], "mechanism": kt.get("mechanism"),
            "wrapper_s": max(0.0, graphs_s - kernels_s) if graphs_s else None,
            "outside_graphs_s": max(0.0, total - graphs_s) if graphs_s else None, "unmatched": unmatched}


def _traffic(v, limit):
    """Bytes each kernel reads and writes per launch (its buffers' sizes and dtypes), and the GB/s it reached."""
    for g in (v.get("capture") or {}).get("graphs") or []:
        kernels = {k["name"]: k for k in v["kernels"] if k["graph"] == g.get("compile_id") and k["backend"] != "extern"}
        for code in g.get("output_code") or []:
            for name, (read, written) in traffic(code, kernels).items():
                k = kernels[name]
                k["read_bytes"], k["written_bytes"] = read, written
                if k.get("time_s") and k.get("launches"):
                    k["gb_s"] = (read + written) * k["launches"] / k["time_s"] / 1e9
                    k["bandwidth_fraction"] = k["gb_s"] / limit if limit else None


def traffic(output_code, kernels):
    """{kernel name: (bytes read, bytes written)} for the launches in the wrapper's ``call`` whose sizes are known.

    ``kernels``: {name: kernel} (with its ``code``). Sizes come from ``assert_size_stride`` (inputs),
    ``empty_strided_*`` and ``reinterpret_tensor`` (buffers) and aliases; dtypes from the kernel's parameters.
    """
    try:
        tree = ast.parse(output_code)
    except (SyntaxError, ValueError):
        return {}
    numel, found = {}, {}
    calls = [n for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "call"
             for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.Call))]
    for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                numel[node.targets[0].id] = _numel(node.value, numel)
            continue
        name = _call_name(node.func) or ""
        name = name[:-4] if name.endswith(".run") else name
        if name == "assert_size_stride" and len(node.args) > 1 and isinstance(node.args[0], ast.Name):
            numel[node.args[0].id] = _product(node.args[1])
        elif name in kernels:
            moved = _moved(_params(kernels[name]), [_numel(a, numel) for a in node.args])
            if moved:
                found[name] = moved
    return found


def _numel(node, numel):
    """Elements of a wrapper expression: a buffer name, a new or reinterpreted buffer, c_void_p(x.data_ptr())."""
    if isinstance(node, ast.Name):
        return numel.get(node.id)
    if not isinstance(node, ast.Call):
        return None
    name = _call_name(node.func) or ""
    if name.startswith("empty_strided") or name == "reinterpret_tensor":
        shape = node.args[0] if name.startswith("empty_strided") else node.args[1] if len(node.args) > 1 else None
        return _product(shape)
    if name == "c_void_p" and node.args and isinstance(node.args[0], ast.Call):  # torch 2.1's cpp launches
        inner = node.args[0].func
        return _numel(inner.value, numel) if isinstance(inner, ast.Attribute) else None
    return None


def _product(shape):
    if not isinstance(shape, ast.Tuple):
        return None
    sizes = [e.value for e in shape.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    return math.prod(sizes) if len(sizes) == len(shape.elts) else None  # a symbolic size: unknown


def _params(kernel):
    """[(parameter name, item size or None)] of a cpp or Triton kernel, in launch-argument order."""
    if kernel["backend"] == "triton":
        signature = TRITON_SIGNATURE.search(kernel["code"])
        items = TRITON_PARAM.findall(signature.group(1)) if signature else []
        return [(name, ITEMSIZE.get(kind.lstrip("*")) if kind.startswith("*") else None) for name, kind in items]
    signature = CPP_PARAMS.search(kernel["code"])
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


def _heat(v):
    """Per line: seconds per call of the kernels it ran in (each kernel's whole time), or of the time outside
    compiled graphs for lines that ran eagerly."""
    split = v.get("time_split") or {}
    times = {k["id"]: k["time_s"] for k in v["kernels"] if k.get("time_s") is not None}
    for e in v["lines"]:
        mine = [times[k] for k in e["kernels"] if k in times]
        t = split.get("outside_graphs_s") if e["status"] in EAGER else sum(mine) if mine else None
        e["time_s"] = t
        e["time_share"] = t / split["total_s"] if t is not None and split.get("total_s") else None
