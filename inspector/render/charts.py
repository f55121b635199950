"""Chart geometry for the HTML pages, as plain numbers for inline SVG: the variant-time bars, the speedup
sweep plot, the compile-phase bar, and the heat colours of source lines."""

import math

from inspector.render.words import seconds

PHASES = (("dynamo_s", "Dynamo", "tracing your Python into graphs"),
          ("aot_s", "AOTAutograd", "functionalisation and decompositions"),
          ("inductor_s", "Inductor", "lowering, fusion and scheduling, or loading the result from its cache"),
          ("codegen_s", "code generation", "writing the kernels and the wrapper"),
          ("build_s", "C++/Triton build", "waiting for the compiler to build the kernels"))
COLORS = ("#4a78c2", "#d9822b", "#3a9d5d", "#b8457b", "#7d5fb2", "#8c6d31", "#2b9bb3", "#c23b3b")
# (share of the call below which, background, text): every pair contrasts at least 4.5:1
HEAT = ((0.05, "#fdf0ec", "#5b2a1a"), (0.15, "#f9d3c6", "#5b2a1a"), (0.30, "#f2a98f", "#3d1a10"),
        (0.50, "#e8785a", "#2b0f08"), (math.inf, "#a8321a", "#ffffff"))
BAR_W, BAR_H, LABEL_W = 560, 22, 210
PLOT_W, PLOT_H, LEFT, BOTTOM = 520, 240, 56, 34


def bars(variants):
    """Bars of each variant's time on a log scale."""
    timed = [(v.id, v.timing.per_population_s) for v in variants if v.timing]
    if not timed:
        return None
    low = math.floor(math.log10(min(t for _, t in timed)))
    high = max(math.ceil(math.log10(max(t for _, t in timed))), low + 1)

    def x(t):
        return BAR_W * (math.log10(t) - low) / (high - low)

    return {"bars": [{"id": i, "y": n * BAR_H, "label": seconds(t), "width": round(max(2.0, x(t)), 1)}
                     for n, (i, t) in enumerate(timed)],
            "ticks": [{"x": round(LABEL_W + x(10.0 ** p), 1), "label": seconds(10.0 ** p)} for p in range(low, high + 1)],
            "left": LABEL_W, "width": LABEL_W + BAR_W + 90, "height": BAR_H * len(timed) + 30}


def phase_bar(phases):
    """The compile phases as coloured segments (label, what it is, seconds, share, colour)."""
    if not phases or not phases.total_s:
        return []
    return [{"label": label, "what": what, "s": getattr(phases, key), "share": getattr(phases, key) / phases.total_s,
             "color": COLORS[i]} for i, (key, label, what) in enumerate(PHASES)]


def heat(share):
    """(background, text colour) of a source line whose kernels took ``share`` of the call."""
    return next((bg, fg) for below, bg, fg in HEAT if share < below)


def sweep_plot(sweep):
    """Each variant's speedup (vs NumPy, else vs Python) at each swept population size, on log-log axes."""
    if len(sweep) < 2:
        return None
    basis = "numpy" if any(v.speedups.vs_numpy for s in sweep for v in s.variants) else "python"
    series = {}
    for s in sweep:
        for v in s.variants:
            speedup = v.speedups.vs_numpy if basis == "numpy" else v.speedups.vs_python
            if speedup and v.id != basis:
                series.setdefault(v.id, []).append((s.population, speedup))
    if not series:
        return None
    sizes = [s.population for s in sweep]
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
