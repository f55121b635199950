"""Derive kernels, graph breaks, line verdicts and speedups from a record alone (no torch import)."""

from inspector.analysis import breaks as breaks_mod
from inspector.analysis import cost
from inspector.analysis import kernels as kernels_mod
from inspector.analysis.lines import scope, verdicts

STATUSES = ("parallel", "serial", "extern", "eager", "graph-break")


def analyze(record):
    """Fill the derived keys of every variant in ``record`` (in place) and return it."""
    n = record["sample"]["population"]
    for v in record["variants"]:
        v.setdefault("error", None)
        v.setdefault("timing", None)
        capture = v.get("capture") or {}
        v["kernels"], v["graphs"], v["analysis_problems"] = _kernels(capture)
        kernels_mod.attach_launch_configs(v["kernels"], v.get("launch_configs"))
        v["graph_breaks"] = breaks_mod.distinct(
            [breaks_mod.parse(b, record["sample"].get("file")) for b in capture.get("breaks") or []])
        v["recompile_count"] = len((v.get("recompiles") or {}).get("graphs") or [])
        v["lines"], v["warnings"] = [], []
        if v.get("compiled") and v.get("status") == "ok":
            statements = scope(record["sample"]["source"], v["function"])
            v["lines"] = verdicts(v, v["kernels"], v["graph_breaks"], record["sample"], record["env"], statements)
            v["warnings"] = breaks_mod.warnings(v, statements)
            _explain_unrolled(v)
        v["break_cost"] = breaks_mod.cost(v)
        v["line_summary"] = {s: len({e["line"] for e in v["lines"] if e["status"] == s}) for s in STATUSES}
        timing = v.get("timing") or {}
        measured = v.get("measured_population") or n
        if timing.get("median_s") is not None:
            timing["per_population_s"] = timing["median_s"] * n / measured
            first = timing.get("first_call_s")
            timing["compile_s"] = _compile_seconds(v) if v.get("compiled") else None
            if v.get("compiled") and timing["compile_s"] is None and first is not None:
                timing["compile_s"] = max(0.0, first - timing["median_s"])
    _speedups(record["variants"])
    for size in record.get("sweep") or []:
        _speedups(size["variants"])
    cost.apply(record)
    return record


def _explain_unrolled(v):
    """Loop headers Dynamo unrolled have no ops of their own: say so on their line."""
    for w in v["warnings"]:
        if w["kind"] == "unrolled-loop":
            for e in v["lines"]:
                if e["line"] in w["lines"] and not e["status"]:
                    e["why"] = [f"Python loop unrolled by Dynamo while tracing: {w['text']}"]


def _kernels(capture):
    kernels, graphs, problems = [], [], []
    for g in capture.get("graphs") or []:
        codes = g.get("output_code") or []
        if not codes:  # a frame Dynamo entered that produced no graph (or an attempt it restarted)
            continue
        graph = {"compile_id": g.get("compile_id"), "op_count": (g.get("metrics") or {}).get("graph_op_count"),
                 "cache": g.get("fx_graph_cache"), "kernels": []}
        for code in codes:
            split = kernels_mod.split(code)
            if not split["understood"]:
                problems.append(f"graph {g.get('compile_id')}: {split['problem']} (raw code kept)")
            for k in split["kernels"]:
                k["graph"] = g.get("compile_id")
                kernels.append(k)
                graph["kernels"].append(k["name"])
        graphs.append(graph)
    names = [k["name"] for k in kernels]
    for k in kernels:
        k["id"] = k["name"] if names.count(k["name"]) == 1 else f"{k['name']}@{k['graph']}"
    return kernels, graphs, problems


def _compile_seconds(v):
    metrics = [g.get("metrics") or {} for g in (v.get("capture") or {}).get("graphs") or []]
    times = [m.get("entire_frame_compile_time_s") for m in metrics if m.get("entire_frame_compile_time_s")]
    return sum(times) if times else None


def _speedups(variants):
    def best(kind):
        times = [v["timing"]["per_population_s"] for v in variants
                 if v["kind"] == kind and not v.get("compiled") and v.get("status") == "ok"
                 and (v.get("timing") or {}).get("per_population_s")]
        return min(times) if times else None

    python, numpy = best("python"), best("numpy")
    eager = min([t for t in (numpy, best("torch")) if t] or [0]) or None
    for v in variants:
        t = (v.get("timing") or {}).get("per_population_s")
        v["speedup_vs_python"] = python / t if python and t else None
        v["speedup_vs_numpy"] = numpy / t if numpy and t else None
        v["break_even_calls"] = _break_even(v, eager)


def _break_even(v, eager):
    """Calls after which compiling paid off against the best eager variant (None: never)."""
    timing = v.get("timing") or {}
    if not v.get("compiled") or not eager or timing.get("compile_s") is None:
        return None
    gain = eager - timing["per_population_s"]
    return timing["compile_s"] / gain if gain > 0 else "never"
