"""The self-contained HTML report: inline CSS, JS and SVG, everything from code or logs escaped."""

import ast
import math
from pathlib import Path

import jinja2

from inspector.analysis import breaks
from inspector.analysis.summary import break_even, ratio, seconds, sentence, timing_note
from inspector.render import costview, highlight

TEMPLATES = Path(__file__).parent / "templates"
STATUS_MARK = {"parallel": "P", "serial": "S", "extern": "L", "eager": "E", "graph-break": "B"}
STATUS_TEXT = {
    "parallel": "parallel: in generated kernels that run multi-threaded (OpenMP region or Triton grid)",
    "serial": "serial: in generated kernels, but one runs single-threaded",
    "extern": "library: ran as a library call or ATen fallback, not generated code",
    "eager": "eager: ran as Python outside any compiled graph",
    "graph-break": "graph break: this line broke the graph",
}
SEVERITY = ("graph-break", "eager", "serial", "extern", "parallel")


def _environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(seconds=seconds, ratio=ratio, break_even=break_even)
    return env


def render(record):
    """The report for one record, as an HTML string."""
    sample = record["sample"]
    source_lines = highlight.lines(sample["source"], "python")
    variants = record["variants"]
    compiled = [_compiled_view(v, source_lines, sample) for v in variants if v.get("compiled")]
    return _environment().get_template("report.html.j2").render(
        record=record, sample=sample, env=record["env"], rows=[_row(v, sample) for v in variants],
        chart=_chart(variants), sweep=costview.sweep_plot(record), compiled=compiled, status_mark=STATUS_MARK,
        status_text=STATUS_TEXT, css=highlight.stylesheet(), source=list(enumerate(source_lines, 1)),
        findings=[f for f in breaks.findings(record) if f["breaks"] or f["warnings"]])


def _row(v, sample):
    t = v.get("timing") or {}
    match = {True: "yes", False: "NO", None: "-"}[v.get("matches_reference")]
    return {"id": v["id"], "status": v["status"], "error": v.get("error"), "kind": v["kind"],
            "device": v["device"], "compiled": v.get("compiled"), "time": t.get("per_population_s"),
            "min": t.get("min_s"), "max": t.get("max_s"), "runs": t.get("runs"),
            "first": t.get("first_call_s") if v.get("compiled") else None, "compile": t.get("compile_s"),
            "vs_python": v.get("speedup_vs_python"), "vs_numpy": v.get("speedup_vs_numpy"),
            "match": match, "mismatch": v.get("mismatch"), "note": timing_note(v, sample["population"]),
            "break_even": break_even(v.get("break_even_calls"))}


def _chart(variants):
    """Bars of each variant's time on a log scale, as plain numbers for an inline SVG."""
    timed = [(v["id"], v["timing"]["per_population_s"]) for v in variants
             if (v.get("timing") or {}).get("per_population_s")]
    if not timed:
        return None
    low = math.floor(math.log10(min(t for _, t in timed)))
    high = math.ceil(math.log10(max(t for _, t in timed)))
    high = max(high, low + 1)
    width = 560
    bars = [{"id": i, "time": t, "label": seconds(t),
             "width": max(2.0, width * (math.log10(t) - low) / (high - low))} for i, t in timed]
    ticks = [{"x": width * (p - low) / (high - low), "label": seconds(10.0 ** p)} for p in range(low, high + 1)]
    return {"bars": bars, "ticks": ticks, "width": width, "height": 22 * len(bars) + 30}


def _compiled_view(v, source_lines, sample):
    """Per-line verdicts of one compiled variant joined to the highlighted source and kernels.

    Only the functions the variant reaches are shown; reasons shared by many lines (why SIMD was
    off) are lifted out of the per-line notes and shown once.
    """
    by_line = {}
    for e in v.get("lines") or []:
        for line in range(e["line"], (e.get("end_line") or e["line"]) + 1):
            by_line.setdefault(line, []).append(e)
    shared = sorted({w for e in v.get("lines") or [] for w in e["why"] if w.startswith("not vectorized")})
    spans = _function_spans(sample["source"], {e["function"] for e in v.get("lines") or []})
    annotated = []
    for number, html_line in enumerate(source_lines, 1):
        if not any(start <= number <= end for start, end in spans):
            continue
        entries = [e for e in by_line.get(number, []) if e["status"]]
        statuses = sorted({e["status"] for e in entries}, key=SEVERITY.index)
        kernels = sorted({k for e in entries for k in e["kernels"]})
        notes = []
        if entries and entries[0]["line"] == number:
            for e in entries:
                via = f" (called from line {', '.join(map(str, e['via']))})" if e["via"] else ""
                why = [w for w in e["why"] if w not in shared]
                notes.append({"status": e["status"], "text": f"{e['status']}{via}" + (": " + "; ".join(why) if why else ""),
                              "vectorized": e["vectorized"], "how": ", ".join(e["how"])})
        gap = bool(annotated) and annotated[-1]["number"] != number - 1
        tooltip = " | ".join(n["text"] for n in notes)
        notes = [n for n in notes if n["status"] != "parallel"]  # the badge says it; details in the tooltip
        share, time_s = costview.line_time(entries)
        annotated.append({"number": number, "html": html_line, "status": statuses[0] if statuses else "",
                          "statuses": statuses, "kernels": kernels, "notes": notes, "gap": gap, "tooltip": tooltip,
                          "vectorized": entries[0]["vectorized"] if entries else None, "share": share,
                          "time_s": time_s})
    kernels = []
    for k in v.get("kernels") or []:
        language = "cpp" if k["backend"] == "cpp" else "triton" if k["backend"] == "triton" else "python"
        evidence = {e["line"]: e["what"] for e in k.get("evidence") or []}
        code = [{"number": n, "html": h, "evidence": evidence.get(n)}
                for n, h in enumerate(highlight.lines(k["code"], language), 1)] if k["code"] else []
        kernels.append(dict(k, code_lines=code, lines=sorted({e["line"] for e in v.get("lines") or []
                                                              if k["id"] in e["kernels"]})))
    return {"variant": v, "sentence": sentence(v), "annotated": annotated, "kernels": kernels, "shared": shared,
            "cost": costview.variant(v, kernels),
            "anchor": "v-" + "".join(c if c.isalnum() else "-" for c in v["id"]),
            "output_code": [c for g in (v.get("capture") or {}).get("graphs") or [] for c in g.get("output_code") or []]}


def _function_spans(source, names):
    """(first, last) line of each top-level function in ``names``, decorators included."""
    spans = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append((first, node.end_lineno))
    return sorted(spans)


def render_index(entries):
    """The index page of a folder of reports: one row per sample, best compiled speedup, sentences."""
    rows = []
    for e in entries:
        record = e["record"]
        variants = record["variants"] if record else []
        ok = [v for v in variants if v.get("compiled") and v["status"] == "ok"]
        best = max((v.get("speedup_vs_numpy") or 0 for v in ok), default=None)
        failed = [v["id"] for v in variants if v["status"] in ("error", "timeout") or v.get("matches_reference") is False]
        rows.append({"stem": e["stem"], "title": e["title"], "best": best or None, "failed": failed,
                     "missing": record is None, "sentences": [(v["id"], sentence(v)) for v in ok]})
    return _environment().get_template("index.html.j2").render(rows=rows)
