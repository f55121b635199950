"""Graph breaks of a variant, and their silent cousins (unrolled loops, recompilations), as typed values."""

from inspector.analysis.lines import comment_frames, same_path
from inspector.analysis.parse import breaks as parse
from inspector.model import BreakCost, CompileWarning, Finding, GraphBreak

UNROLLED_MIN_TIMES = 2  # a loop body traced this many times over into one graph was unrolled


def distinct(entries, sample):
    """(GraphBreaks, problems): each (file, line, reason) once, in first-seen order, with its count, the file
    named as the user gave it when it is the sample; problems: the messages that name no location."""
    seen, problems = {}, []
    source = sample.source.splitlines()
    target = sample.file or sample.path
    for entry in entries:
        b = parse.parse(entry)
        if b["line"] is None:
            problems.append(f"graph break {b['compile_id']}: no file and line in torch's message: {b['reason']}")
        file, line = b["file"], b["line"]
        own = [f for f in b["frames"] if same_path(f[0], target)]
        if own and not same_path(file or "", target):  # prefer the innermost frame in the user's file
            file, line = own[-1][:2]
        mine = file is not None and same_path(file, target)
        key = (file, line, b["reason"])
        if key in seen:
            seen[key]["count"] += 1
            continue
        seen[key] = dict(b, file=sample.path if mine else file, line=line, count=1,
                         code=source[line - 1].strip() if mine and line and 0 < line <= len(source) else None)
    fields = GraphBreak.__dataclass_fields__
    return [GraphBreak(**{k: v for k, v in b.items() if k in fields}) for b in seen.values()], problems


def cost(regions):
    """Seconds per call outside compiled graphs (Python between graphs), from the profiler pass's ``regions``."""
    if not regions:
        return None
    outside = max(0.0, regions["total_s"] - regions["graphs_s"])
    return BreakCost(outside, regions["graphs_s"], outside / regions["total_s"] if regions["total_s"] else 0.0)


def warnings(graphs, raw, statements, sample):
    """The silent cousins of a break: unrolled Python loops and recompilations.

    ``graphs``: the variant's raw graphs; ``raw``: its raw result (``recompiles``, ``sizes``); ``statements`` maps
    the scope's statement lines to {"function", "loop", "in_loop"} (see lines.scope).
    """
    found = []
    for g in graphs:
        for loop, times in unrolled(g.get("fx_graph") or "", statements, sample).items():
            found.append(CompileWarning("unrolled-loop", [loop], g.get("compile_id"), (
                f"Dynamo unrolled the Python loop at line {loop}: its body was traced {times} times into graph "
                f"{g.get('compile_id')}, so compile time and graph size grow with its trip count. Vectorise the loop "
                "over a new axis instead")))
    recompiled = [("while timing", g.get("compile_id"), (g.get("metrics") or {}).get("recompile_reason"))
                  for g in (raw.get("recompiles") or {}).get("graphs") or []]
    for size in raw.get("sizes") or []:
        recompiled += [(f"at population {size['population']:,}", r["compile_id"], r["reason"])
                       for r in size["recompiles"]]
    for when, compile_id, reason in recompiled:
        if reason:  # frames re-entered without a failed guard (restarts, resume functions) say nothing
            found.append(CompileWarning("recompile", [], compile_id,
                                        f"recompiled {when}: {reason.strip().splitlines()[0]}"))
    return found


def unrolled(fx_graph, statements, sample):
    """{loop header line: times its body was traced} for the Python loops Dynamo unrolled into a graph.

    The evidence: in the graph's node order (its `# File:` comments), a line inside the loop's body comes back
    after other lines, again and again: straight-line code, however long, visits each line once.
    """
    visits, previous = {}, None
    for line, _ in comment_frames(fx_graph, sample):
        if line != previous:
            visits[line] = visits.get(line, 0) + 1
        previous = line
    times = {}
    for line, count in visits.items():
        loop = (statements.get(line) or {}).get("in_loop")
        if loop and count >= UNROLLED_MIN_TIMES:
            times[loop] = max(times.get(loop, 0), count)
    return dict(sorted(times.items()))


def findings(variants):
    """Per compiled variant that ran (Triton previews left out: their breaks are the compiled variants'): its
    graphs, breaks, cost and warnings; the variant that spends most time outside compiled graphs first."""
    rows = [Finding(v.id, v.status, v.error, v.graphs, v.break_cost, v.breaks, v.warnings)
            for v in variants if v.compiled and v.status != "skipped" and not v.preview]
    return sorted(rows, key=lambda r: -(r.cost.outside_s if r.cost else 0.0))
