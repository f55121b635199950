"""Chart geometry for the HTML pages, as typed values of plain numbers for inline SVG: the variant-time bars
(``Bars``), the speedup sweep plot (``Sweep``), the compile-phase bar (``Phase``), and the heat colours of source
lines (``Heat``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from inspector.model import CompilePhases, SampleVariant, SweepPoint
from inspector.render.words import PHASES, ratio, seconds

COLORS = ("#4a78c2", "#d9822b", "#3a9d5d", "#b8457b", "#7d5fb2", "#8c6d31", "#2b9bb3", "#c23b3b")
# (share of the call below which, background, text): every pair contrasts at least 4.5:1
HEAT = ((0.05, "#fdf0ec", "#5b2a1a"), (0.15, "#f9d3c6", "#5b2a1a"), (0.30, "#f2a98f", "#3d1a10"),
        (0.50, "#e8785a", "#2b0f08"), (math.inf, "#a8321a", "#ffffff"))
BAR_W, BAR_H, LABEL_W = 560, 22, 210
PLOT_W, PLOT_H, LEFT, BOTTOM = 520, 240, 56, 34


@dataclass(frozen=True)
class Tick:
    """An axis tick: where (x or y, as its axis is) and its label."""

    at: float
    label: str


@dataclass(frozen=True)
class Bar:
    id: str
    y: int
    label: str
    width: float


@dataclass(frozen=True)
class Bars:
    """Each variant's time on a log scale: its bars, the x axis' ticks, where the bars start, the SVG's size."""

    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    left: int
    width: int
    height: int


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    title: str


@dataclass(frozen=True)
class Series:
    """One variant's speedups over the sizes of a sweep: its colour, its polyline's points and its dots."""

    id: str
    color: str
    points: str
    dots: tuple[Dot, ...]


@dataclass(frozen=True)
class Sweep:
    """The speedup sweep plot: against which eager variant (``basis``), its series, the y of 1x, the plot's edges,
    the SVG's size, and both axes' ticks."""

    basis: str
    lines: tuple[Series, ...]
    one: float
    left: int
    right: int
    bottom: int
    width: int
    height: int
    xticks: tuple[Tick, ...]
    yticks: tuple[Tick, ...]


@dataclass(frozen=True)
class Phase:
    """One compile phase of the phase bar: its name, what it does, its seconds, share of the compile and colour."""

    label: str
    what: str
    s: float
    share: float
    color: str


@dataclass(frozen=True)
class Heat:
    """The colours of a source line whose kernels took a share of the call: its background and its text's."""

    background: str
    text: str


def bars(variants: Sequence[SampleVariant]) -> Optional[Bars]:
    """Bars of each variant's time on a log scale."""
    timed = [(v.id, v.timing.per_population_s) for v in variants if v.timing]
    if not timed:
        return None
    low = math.floor(math.log10(min(t for _, t in timed)))
    high = max(math.ceil(math.log10(max(t for _, t in timed))), low + 1)

    def x(t: float) -> float:
        return BAR_W * (math.log10(t) - low) / (high - low)

    return Bars(tuple(Bar(i, n * BAR_H, seconds(t), round(max(2.0, x(t)), 1)) for n, (i, t) in enumerate(timed)),
                tuple(Tick(round(LABEL_W + x(10.0 ** p), 1), seconds(10.0 ** p)) for p in range(low, high + 1)),
                LABEL_W, LABEL_W + BAR_W + 90, BAR_H * len(timed) + 30)


def phase_bar(phases: Optional[CompilePhases]) -> tuple[Phase, ...]:
    """The compile phases as coloured segments."""
    if not phases or not phases.total_s:
        return ()
    return tuple(Phase(label, what, getattr(phases, key), getattr(phases, key) / phases.total_s, COLORS[i])
                 for i, (key, label, what) in enumerate(PHASES))


def heat(share: float) -> Heat:
    """The colours of a source line whose kernels took ``share`` of the call."""
    return next(Heat(bg, fg) for below, bg, fg in HEAT if share < below)


def sweep_plot(sweep: Sequence[SweepPoint]) -> Optional[Sweep]:
    """Each variant's speedup (vs NumPy, else vs Python) at each swept population size, on log-log axes."""
    if len(sweep) < 2:
        return None
    basis = "numpy" if any(v.speedups.vs_numpy for s in sweep for v in s.variants) else "python"
    series: dict[str, list[tuple[int, float]]] = {}
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

    def x(n: float) -> float:
        return LEFT + PLOT_W * (math.log10(n) - x0) / (x1 - x0)

    def y(s: float) -> float:
        return PLOT_H - PLOT_H * (math.log10(s) - y0) / (y1 - y0) + 8

    lines = tuple(Series(vid, COLORS[i % len(COLORS)], " ".join(f"{x(n):.1f},{y(s):.1f}" for n, s in points),
                         tuple(Dot(round(x(n), 1), round(y(s), 1), f"{vid} at {n:,}: {ratio(s)}") for n, s in points))
                  for i, (vid, points) in enumerate(series.items()))
    return Sweep(basis, lines, round(y(1.0), 1), LEFT, LEFT + PLOT_W, PLOT_H + 8, LEFT + PLOT_W + 250,
                 PLOT_H + 8 + BOTTOM, tuple(Tick(round(x(n), 1), f"{n:,}") for n in sizes),
                 tuple(Tick(round(y(10.0 ** p), 1), f"{10.0 ** p:g}x") for p in range(y0, y1 + 1)))
