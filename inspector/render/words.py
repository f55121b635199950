"""Plain words shared by every renderer: durations, ratios, reasons and one-sentence summaries."""

import math


def seconds(value):
    """A duration for people: 6.91 s, 48.0 ms, 180 µs."""
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    return f"{value * 1e6:.3g} µs"


def ratio(value):
    """A speedup for people: 6.5x, or 16x slower (rather than 0.0625x)."""
    if value is None:
        return "-"
    return f"{value:.3g}x" if value >= 1 else f"{1 / value:.3g}x slower"


def break_even(value):
    """A BreakEven for people: 1,204 calls, never, or - (not a compiled variant, or no eager one to pay against)."""
    if value is None:
        return "-"
    return "never" if value.calls is None else f"{math.ceil(value.calls):,} calls"


def reason(r):
    """A Reason as one clause, as it reads inline under a source line."""
    return f"not vectorized: {r.text}" if r.not_vectorized else r.text


def timing_note(v, population):
    """What the time column of a variant means, when it is not one plain full-population median."""
    if v.measured_population and v.measured_population < population:
        return (f"measured on the first {v.measured_population:,} of {population:,} individuals; the time shown is "
                f"scaled to the whole population ({population / v.measured_population:.1f}x)")
    if v.preview:
        return "not run: a Triton codegen preview for a CPU target, generated and never run or timed"
    copies = v.transfer
    if copies:
        back = f" and the output back in {seconds(copies['to_host_s'])}" if copies.get("to_host_s") else ""
        return (f"inputs moved to the GPU once, not timed: copying the population there takes "
                f"{seconds(copies['to_device_s'])}{back}, which a caller holding NumPy arrays pays on every call")
    return None


def sentence(v):
    """One sentence on a compiled variant: what ran in parallel, what was vectorized, what broke."""
    if v.status != "ok":
        return f"{v.id}: {v.status}: {v.error or ''}".strip()
    lines = [e for e in v.lines if e.status]
    distinct = {e.line for e in lines}
    parallel = {e.line for e in lines if e.status == "parallel"}
    vectorized = {e.line for e in lines if e.vectorized == "all"}
    verb = "would run" if v.preview else "ran"
    parts = [f"{len(parallel)} of {len(distinct)} lines {verb} in parallel kernels"]
    if {e.vectorized for e in lines} - {None} != {"n/a"}:  # SIMD is a CPU notion: Triton lines are n/a
        parts[-1] += f", {len(vectorized)} vectorized"
    if distinct and not vectorized and any(r.kind == "not-vectorized-strided" for e in lines for r in e.why):
        parts[-1] += " (strided loads)"
    others = {}
    for e in lines:
        if e.status != "parallel":
            others.setdefault(e.status, set()).add(e.line)
    for status, where in sorted(others.items()):
        parts.append(f"{status} at line{'s' if len(where) > 1 else ''} {', '.join(map(str, sorted(where)))}")
    if v.breaks:
        where = ", ".join(str(b.line) for b in v.breaks)
        part = f"{len(v.breaks)} graph break{'s' if len(v.breaks) > 1 else ''} (line {where})"
        if v.break_cost:
            part += f" leave {v.break_cost.outside_fraction:.0%} of each call outside compiled graphs"
        parts.append(part)
    if any(w.kind == "unrolled-loop" for w in v.warnings):
        parts.append("a Python loop unrolled into a huge graph")
    if v.recompile_count:
        parts.append(f"{v.recompile_count} recompilation(s) while timing")
    return "; ".join(parts) + "."


def match(v):
    """Whether a variant matched the reference: yes, NO, or - (not checked)."""
    return {True: "yes", False: "NO", None: "-"}[v.matches_reference]
