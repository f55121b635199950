"""Plain-words summaries shared by every renderer."""

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
    """Break-even calls for people: 1,204 calls, never, or -."""
    if value is None or value == "never":
        return value or "-"
    return f"{math.ceil(value):,} calls"


def timing_note(v, population):
    """What the time column of a variant means, when it is not one plain full-population median."""
    measured = v.get("measured_population")
    if measured and measured < population:
        return (f"measured on the first {measured:,} of {population:,} individuals; the time shown is "
                f"scaled to the whole population ({population / measured:.1f}x)")
    if v.get("preview"):
        return "not run: a Triton codegen preview for a CPU target, generated and never run or timed"
    copies = v.get("transfer")
    if copies:
        back = f" and the output back in {seconds(copies['to_host_s'])}" if copies.get("to_host_s") else ""
        return (f"inputs moved to the GPU once, not timed: copying the population there takes "
                f"{seconds(copies['to_device_s'])}{back}, which a caller holding NumPy arrays pays on every call")
    return None


def sentence(v):
    """One sentence on a compiled variant: what ran in parallel, what was vectorized, what broke."""
    if v.get("status") != "ok":
        return f"{v['id']}: {v.get('status')}: {v.get('error') or ''}".strip()
    lines = [e for e in v.get("lines") or [] if e["status"]]
    distinct = {e["line"] for e in lines}
    parallel = {e["line"] for e in lines if e["status"] == "parallel"}
    vectorized = {e["line"] for e in lines if e["vectorized"] == "all"}
    verb = "would run" if v.get("preview") else "ran"
    parts = [f"{len(parallel)} of {len(distinct)} lines {verb} in parallel kernels"]
    if {e["vectorized"] for e in lines} - {None} != {"n/a"}:  # SIMD is a CPU notion: Triton lines are n/a
        parts[-1] += f", {len(vectorized)} vectorized"
    no_simd = [w for e in lines for w in e["why"] if w.startswith("not vectorized: strided")]
    if distinct and not vectorized and no_simd:
        parts[-1] += " (strided loads)"
    others = {}
    for e in lines:
        if e["status"] != "parallel":
            others.setdefault(e["status"], set()).add(e["line"])
    for status, where in sorted(others.items()):
        parts.append(f"{status} at line{'s' if len(where) > 1 else ''} {', '.join(map(str, sorted(where)))}")
    breaks = v.get("graph_breaks") or []
    if breaks:
        where = ", ".join(str(b["line"]) for b in breaks)
        part = f"{len(breaks)} graph break{'s' if len(breaks) > 1 else ''} (line {where})"
        cost = v.get("break_cost")
        if cost:
            part += f" leave {cost['outside_fraction']:.0%} of each call outside compiled graphs"
        parts.append(part)
    unrolled = [w for w in v.get("warnings") or [] if w["kind"] == "unrolled-loop"]
    if unrolled:
        parts.append("a Python loop unrolled into a huge graph")
    if v.get("recompile_count"):
        parts.append(f"{v['recompile_count']} recompilation(s) while timing")
    return "; ".join(parts) + "."
