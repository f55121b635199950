"""The report's cost views, as plain numbers for the templates: kernel times, compile phases, line heat,
and speedup against population size (an inline SVG plot)."""

import math

PHASES = (("dynamo_s", "Dynamo", "tracing your Python into graphs"),
          ("aot_s", "AOTAutograd", "functionalisation and decompositions"),
          ("inductor_s", "Inductor", "lowering, fusion and scheduling, or loading the result from its cache"),
          ("codegen_s", "code generation", "writing the kernels and the wrapper"),
          ("build_s", "C++/Triton build", "waiting for the compiler to build the kernels"))
COLORS = ("#4a78c2", "#d9822b", "#3a9d5d", "#b8457b", "#7d5fb2", "#8c6d31", "#2b9bb3", "#c23b3b")
PLOT_W, PLOT_H, LEFT, BOTTOM = 520, 240, 56, 34


def variant(v, kernels):
    """Kernel rows (slowest first) and the rest of the call, compile phases, for one compiled variant."""
    split = v.get("time_split") or {}
    total = split.get("total_s")
    rows = sorted((k for k in kernels if k.get("time_s") is not None), key=lambda k: -k["time_s"])
    rest = [(label, split.get(key)) for key, label in (
        ("wrapper_s", "wrapper: between kernels, inside compiled graphs"),
        ("outside_graphs_s", "outside compiled graphs: guards, conversions, Python between graphs"))]
    phases = v.get("compile_phases")
    bar = []
    if phases and phases["total_s"]:
        bar = [{"label": label, "what": what, "s": phases[key], "share": phases[key] / phases["total_s"],
                "color": COLORS[i]} for i, (key, label, what) in enumerate(PHASES)]
    return {"split": split if total else None, "kernels": rows, "error": split.get("error"),
            "rest": [{"label": label, "s": s, "share": s / total} for label, s in rest if s is not None and total],
            "phases": phases, "bar": bar}


def line_time(entries):
    """(share of the call, seconds) of the costliest verdict on a source line, or (None, None)."""
    timed = [e for e in entries if e.get("time_share") is not None]
    best = max(timed, key=lambda e: e["time_share"], default=None)
    return (best["time_share"], best["time_s"]) if best else (None, None)


def sweep_plot(record):
    """Each variant's speedup (vs NumPy, else vs Python) at each swept population size, on log-log axes."""
    sweep = record.get("sweep") or []
    if len(sweep) < 2:
        return None
    basis = "numpy" if any(v.get("speedup_vs_numpy") for s in sweep for v in s["variants"]) else "python"
    key = f"speedup_vs_{basis}"
    series = {}
    for s in sweep:
        for v in s["variants"]:
            if v.get(key) and v["id"] != basis:
                series.setdefault(v["id"], []).append((s["population"], v[key]))
    if not series:
        return None
    sizes = [s["population"] for s in sweep]
    ys = [y for points in series.values() for _, y in points] + [1.0]
    x0, x1 = math.log10(min(sizes)), math.log10(max(sizes))
    x1 = max(x1, x0 + 1e-9)
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    y1 = max(y1, y0 + 1)

    def x(n):
        return LEFT + PLOT_W * (math.log10(n) - x0) / (x1 - x0)

    def y(s):
        return PLOT_H - PLOT_H * (math.log10(s) - y0) / (y1 - y0) + 8

    lines = [{"id": vid, "color": COLORS[i % len(COLORS)],
              "points": " ".join(f"{x(n):.1f},{y(s):.1f}" for n, s in points),
              "dots": [{"x": round(x(n), 1), "y": round(y(s), 1), "title": f"{vid} at {n:,}: {s:.3g}x"}
                       for n, s in points]}
             for i, (vid, points) in enumerate(series.items())]
    return {"basis": basis, "lines": lines, "one": round(y(1.0), 1), "left": LEFT, "right": LEFT + PLOT_W,
            "bottom": PLOT_H + 8, "width": LEFT + PLOT_W + 250, "height": PLOT_H + 8 + BOTTOM,
            "xticks": [{"x": round(x(n), 1), "label": f"{n:,}"} for n in sizes],
            "yticks": [{"y": round(y(10.0 ** p), 1), "label": f"{10.0 ** p:g}x"} for p in range(y0, y1 + 1)]}
