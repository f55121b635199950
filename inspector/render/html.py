"""The HTML renderer: self-contained pages (inline CSS, JS and SVG), everything from code or logs escaped."""

import ast
import re
from pathlib import Path

import jinja2

from inspector.analysis import compare
from inspector.analysis import fixes
from inspector.model import STATUSES, Backend, ReasonKind, SampleVariant, Status
from inspector.render import charts, comparison as comparison_words, fixes as fix_words, highlight
from inspector.render.base import Renderer
from inspector.render import views
from inspector.render.words import (break_even, error_parts, launched, match, program_title, ratio, reason,
                                    recompile_why, run_notes, seconds, sentence)

TEMPLATES = Path(__file__).parent / "templates"
STYLESHEET = Path(__file__).parent / "static" / "style.css"
STATUS_MARK = {"parallel": "P", "extern": "L", "unknown": "?", "serial": "S", "eager": "E", "graph-break": "B"}
STATUS_TEXT = {
    "parallel": "parallel: in generated loops that run multi-threaded (OpenMP loop or Triton grid)",
    "extern": "library: ran as a library call or ATen fallback, not generated code",
    "unknown": "unknown: in generated code, but the evidence does not say in which of its differing loops",
    "serial": "serial: in generated code, but a loop it runs in is single-threaded",
    "eager": "eager: ran as Python outside any compiled graph",
    "graph-break": "graph break: this line broke the graph",
}
SEVERITY = tuple(reversed(STATUSES))  # worst news first
KERNEL_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
PROGRAM_LIMIT = 12  # kernels shown per compiled function of a program (see _compiled_view): each is tens of kB
# lines of one kernel's code (highlighted: about 700 bytes each) and of one graph's output code (its first and last
# halves: the kernels, then the wrapper's call) shown on a page: an unrolled solver's fused kernel has tens of thousands
KERNEL_LINES = 500
OUTPUT_CODE_LINES = 2000
REASONS_PER_KIND = 5  # reasons of one kind shown under one source line (see _bounded)
SAID_ONCE = (ReasonKind.MACHINE_DISAGREES, ReasonKind.MACHINE_LANE)  # reasons shown once above a variant's source, not per line
LEFT_OUT = {"serial": "single-threaded loop nests", "not-fused": "pairs of loops Inductor did not fuse"}
ENV_ROWS = ("torch", "python", "numpy", "threads", "cpu", "isa", "cuda", "platform", "executable")
DIFF_LINES = 400  # diff lines of one kernel pair shown on a comparison page


def environment(index=None):
    """The jinja environment of every page: autoescaping on, the shared stylesheet and filters; ``index``: the page
    a report links back to at its top (a folder's index), or None."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters.update(seconds=seconds, ratio=ratio, break_even=break_even, match=match, recompile_why=recompile_why,
                       run_notes=run_notes, error_parts=error_parts, launched=launched,
                       moved=comparison_words.moved)
    env.globals.update(stylesheet=STYLESHEET.read_text(encoding="utf-8"), index=index, Status=Status, Backend=Backend)
    return env


class HtmlRenderer(Renderer):
    name = "html"

    def __init__(self, index=None):
        self.index_page = index  # a report written as part of a folder links back to the folder's index page

    def report(self, analysis):
        """The report of one run: the headline, what to change and the timings first, then each compiled variant."""
        sample = analysis.sample
        index = {f.display: i for i, f in enumerate(analysis.files)}
        heads = views.headlines(analysis)
        tried = [f for f in fixes.candidates(analysis) if f.tried]
        shown = next((h.compiled for h in heads if h.compiled), None)  # its section opens; the others are folded

        def line_anchor(variant, display, line):
            """The id of a source line in a variant's annotated view (see _annotated)."""
            anchor = _anchor(variant)
            return f"{anchor if index.get(display, 0) == 0 else f'{anchor}-f{index[display]}'}-L{line}"
        return environment(self.index_page).get_template("report.html.j2").render(
            a=analysis, sample=sample, env=analysis.env, chart=charts.bars(analysis.variants),
            sweep=charts.sweep_plot(analysis.sweep), headlines=heads,
            changes=views.changes(analysis), without_gain=views.tried_without_gain(analysis),
            table=views.table(analysis), caution=views.caution(analysis), line_anchor=line_anchor,
            compiled=[dict(_compiled_view(v, analysis.files, tried=[f for f in tried if f.variant == v.id]),
                           open=v.id == shown)
                      for v in analysis.variants if v.compiled],
            findings=[f for f in analysis.findings if f.breaks or f.warnings], status_mark=STATUS_MARK,
            families=sorted({v.family for v in analysis.variants}),
            status_text=STATUS_TEXT, highlight_css=highlight.stylesheet())

    def comparison(self, comparison):
        """A comparison of runs as one page: per pair of runs, each variant's verdict first (eager ones read as the
        control for the machine and NumPy), what else changed, the lines whose verdict changed, where the time goes
        under each, each variant's timings and code hunks; the runs and their environment last."""
        pairs = [{"p": p, "summary": comparison_words.summary(p),
                  "variants": [_compared(n, p, v) for v in p.variants],
                  "others": [w for w in p.warnings if w not in {c.text for c in p.confounders}]}
                 for n, p in enumerate(comparison.pairs)]
        runs = comparison.runs
        differs = {c.key for p in comparison.pairs for c in p.confounders}
        env = [("arguments", False, [" ".join(r.argv) for r in runs]),
               ("machine load", False, [r.load for r in runs])] if comparison.program else [
            ("population", False, ["{:,}".format(r.population) for r in runs])]
        env += [("date", False, [r.created.replace("T", " ") for r in runs]),
               ("torch build", "build" in differs, [r.build for r in runs])]
        env += [(key, key in differs, [getattr(r.env, key) for r in runs]) for key in ENV_ROWS]
        env.append(("config", False, [" ".join(r.config) or "-" for r in runs]))
        return environment().get_template("compare.html.j2").render(
            sample=comparison.sample, runs=runs, env=env, pairs=pairs, clear=compare.CLEAR)

    def index(self, entries):
        """The index of a folder of reports: ``entries`` [(stem, Analysis or None)], a row each (see _index_row),
        sortable by any column (an inline script)."""
        return environment().get_template("index.html.j2").render(rows=[_index_row(stem, a) for stem, a in entries])

    def program(self, analysis):
        """The report of a program's run (``inspector run``): its compiled functions, each as a compiled variant."""
        p = analysis.program
        costliest = max(p.functions, key=lambda v: v.run.total_s, default=None)
        compiled = [dict(_compiled_view(v, analysis.files, limit=PROGRAM_LIMIT), open=v is costliest)
                    for v in p.functions]
        rows = [{"v": c["v"], "anchor": c["anchor"], "where": _where(c["v"], analysis.files),
                 "share": c["v"].run.total_s / p.wall_s if p.wall_s else None,
                 "kernels_share": c["split"].kernels_s / c["split"].total_s if c["split"] and c["split"].kernels_s
                 is not None else None} for c in compiled]
        return environment().get_template("program.html.j2").render(
            a=analysis, p=p, title=program_title(analysis), headlines=views.program_headlines(analysis),
            fixes=views.program_fixes(analysis),
            sample=analysis.sample, env=analysis.env, rows=rows,
            compiled=compiled,
            status_mark=STATUS_MARK, status_text=STATUS_TEXT, highlight_css=highlight.stylesheet())


def _index_row(stem, analysis):
    """One report of a folder's index: its torch and date; per family (the report's headlines) its fastest variant
    and time, and its best compiled variant against its fastest eager one, with both times; its graph break sites,
    recompiles, failed variants and whether the report cautions about the machine; "sort": each column's sort key (a
    family column sorts by its worst family)."""
    if analysis is None:
        return {"stem": stem, "title": stem, "missing": True, "families": [], "sort": {}}
    families = []
    for h in views.headlines(analysis):
        compiled, eager = (analysis.variant(vid) if vid else None for vid in (h.compiled, h.eager))
        families.append({"family": h.family, "fastest": h.fastest, "time_s": h.time_s, "compiled": compiled,
                         "eager": eager, "vs": eager.timing.per_population_s / compiled.timing.per_population_s
                         if compiled and eager else None})
    compiled = [v for v in analysis.variants if v.compiled and not v.preview]
    again = [(v.id, v.code.recompilation) for v in compiled if v.code.recompilation]
    row = {"stem": stem, "title": analysis.sample.title, "missing": False, "families": families,
           "torch": analysis.env.torch, "created": analysis.created, "interrupted": analysis.interrupted,
           "breaks": len({(b.file, b.line) for v in compiled for b in v.code.breaks}),
           "recompiles": sum(r.count for _, r in again),
           "limit": [f"{vid}: {'recompile limit hit' if r.limit else 'on every call'}"
                     for vid, r in again if r.limit or r.every_call],
           "failed": [v.id for v in analysis.variants if v.failed], "internal": len(analysis.internal_errors),
           "busy": views.caution(analysis) is not None}
    times = [f["time_s"] for f in families]
    ratios = [f["vs"] for f in families if f["vs"]]
    row["sort"] = {"torch": ".".join(f"{int(n):04d}" for n in re.findall(r"\d+", row["torch"] or "")[:3]),
                   "fastest": max(times) if times else "", "vs": min(ratios) if ratios else ""}
    return row


def _compared(n, pair, v):
    """One ComparedVariant ``v`` of a pair of runs, with what the comparison page says of it (see comparison)."""
    time = v.time
    return {"v": v, "headline": comparison_words.headline(v), "notes": comparison_words.notes(pair, v),
            "reading": comparison_words.reading(pair, v), "time": time,
            "moved": comparison_words.moved(time and time.speedup), "spread": comparison_words.spread(time),
            "anchor": f"p{n}-{v.id}", "timing": [(t, comparison_words.speedup(t)) for t in v.timing],
            "code": [dict(_diff_view(k.hunks), k=k) for k in comparison_words.code(v)]}


def _diff_view(hunks):
    """A code pair's hunks as shown: {"structural": [hunk], "cosmetic": [hunk]}, each hunk {"h": the Hunk, "lines":
    its lines as (CSS class, line)}, at most DIFF_LINES lines on the page (structural ones first), and "more": how
    many are left out."""
    shown, left, out = 0, 0, {"structural": [], "cosmetic": []}
    for h in sorted(hunks, key=lambda h: h.kind != "structural"):
        room = max(0, DIFF_LINES - shown)
        left += max(0, len(h.lines) - room)
        if room:
            lines = h.lines[:room]
            shown += len(lines)
            out[h.kind].append({"h": h, "lines": [(comparison_words.diff_class(ln), ln) for ln in lines]})
    return dict(out, more=left)


def _anchor(vid):
    """The HTML id of a variant's section (its lines' ids start with it)."""
    return "v-" + "".join(c if c.isalnum() else "-" for c in vid)


def _where(v, files):
    """"ga.py:18": where a compiled function is defined, in the report's file names."""
    path = v.location.file if v.location else None
    shown = next((f.display for f in files if f.path == path), path)
    return f"{shown}:{v.location.line}" if path else ""


def _compiled_view(v, files, limit=None, tried=()):
    """Per-line verdicts of one compiled variant joined to the highlighted source of each file and to its kernels.

    Only the functions the variant reaches are shown; libraries are folded; reasons shared by many lines (why SIMD
    was off) are lifted out of the per-line notes and shown once. ``limit``: at most this many kernels (the
    costliest first where they were timed) and one graph's whole output code, so that a program with hundreds of
    graphs gives a page that opens quickly; the rest is in the record. ``tried``: the fixes tried on it (Fixes),
    said once above its source.
    """
    code = v.code
    shared = sorted({r.text for e in code.lines for r in e.why if r.not_vectorized})
    overruled = list(dict.fromkeys(r.text for e in code.lines for r in e.why if r.kind in SAID_ONCE))  # said once
    anchor = _anchor(v.id)
    ordered = sorted(code.kernels, key=lambda k: (k.cost.time_s is None, -(k.cost.time_s or 0))) if limit \
        else code.kernels
    shown = ordered[:limit] if limit else ordered
    shown_nests = {f"{k.id}#{n.index}" for k in shown for n in k.loop_nests if n.lines[0] <= KERNEL_LINES}
    colors = {k.id: KERNEL_COLORS[i % len(KERNEL_COLORS)] for i, k in enumerate(shown)}  # a line and its kernels
    views = []
    for i, file in enumerate(files):
        entries = [e for e in code.lines if e.file == file.display]
        if entries:
            prefix = anchor if file.kind == "sample" else f"{anchor}-f{i}"
            annotated = _annotated(file, entries, shared, prefix, colors, shown_nests)
            placed = {e.line for e in entries if e.status}
            views.append({"file": file, "annotated": annotated, "open": file.kind in ("sample", "user"),
                          "summary": f"{sum(1 for e in entries if e.status == 'parallel')} of {len(placed)} lines "
                                     "with a verdict ran in parallel loops"})
    kernels = [dict(_kernel_view(k, [e for e in code.lines if k.id in e.kernels], files[0].display),
                    color=colors[k.id]) for k in shown]
    timed = sorted((kv for kv in kernels if kv["k"].cost.time_s is not None), key=lambda kv: -kv["k"].cost.time_s)
    output_code = [c for g in code.graphs for c in g.output_code]
    shown_code = [_cut(code, OUTPUT_CODE_LINES // 2, OUTPUT_CODE_LINES // 2)
                  for code in (output_code[:1] if limit else output_code)]
    split = code.time_split
    total = split.total_s if split else None
    rest = [(label, getattr(split, key)) for key, label in (
        ("wrapper_s", "wrapper: between kernels, inside compiled graphs"),
        ("outside_graphs_s", "outside compiled graphs: guards, conversions, Python between graphs"))] if split else []
    sample_variant = isinstance(v, SampleVariant)
    return {"v": v, "sentence": sentence(v, files[0].display), "files": views, "kernels": kernels,
            "more_kernels": len(code.kernels) - len(shown), "more_code": len(output_code) - len(shown_code),
            "shared": shared, "tried": _tried(v, tried), "overruled": overruled,
            "run": None if sample_variant else v.run, "preview": sample_variant and v.preview,
            "error_line": v.error_line if sample_variant else None,
            "error_detail": v.error_detail if sample_variant else None, "ok": v.status == Status.OK and (
                not sample_variant or v.compiled),
            "anchor": anchor, "timed": timed, "split": split if total else None,
            "rest": [{"label": label, "s": s, "share": s / total} for label, s in rest if s is not None and total],
            "phases": charts.phase_bar(code.compile_phases), "output_code": shown_code}


def _tried(v, tried):
    """What trying each fix of ``tried`` on ``v`` measured, in words, each once: those about its source lines in the
    order of the first line each is about (in the order they were tried where they share it), then those about the
    whole function (static shapes)."""
    if not tried:
        return []
    first = {}
    for i, e in enumerate(v.code.lines):
        first.setdefault((e.file, e.line), i)
    position = {t.id: i for i, t in enumerate(v.trials)}

    def order(fix):
        return min((first[fl] for fl in fix.lines if fl in first), default=len(first)), position.get(fix.tried.id, 0)
    return list(dict.fromkeys(fix_words.trial(f.tried) for f in sorted(tried, key=order)))


def _kernel_view(k, entries, sample):
    """One kernel of the kernel table: its first KERNEL_LINES lines of code highlighted, with their evidence and loop
    nests, how many lines and nests are left out, and the source lines it computes (``entries``, their verdicts),
    each (file, line) once however many call chains reach it; ``sample``: the display name shown as a bare line."""
    language = {"cpp": "cpp", "triton": "triton"}.get(k.backend, "python")
    evidence = {e.line: e.what for e in k.evidence}
    nest_of = {line: n for n in k.loop_nests for line in range(n.lines[0], n.lines[1] + 1)}
    head = _cut(k.code, KERNEL_LINES)
    code = [{"number": i, "html": h, "evidence": evidence.get(i), "nest": nest_of.get(i),
             "label": nest_of[i].describe() if i in nest_of and nest_of[i].lines[0] == i else None}
            for i, h in enumerate(highlight.lines(head["text"], language), 1)] if k.code else []
    return {"k": k, "code_lines": code, "more_lines": head["more"], "total_lines": head["total"],
            "more_nests": sum(1 for n in k.loop_nests if n.lines[1] > KERNEL_LINES),
            "lines": list(dict.fromkeys(str(e.line) if e.file == sample else f"{e.file}:{e.line}" for e in entries))}


def _cut(text, head, tail=0):
    """{"text": ``text``, or its first ``head`` and last ``tail`` lines around a line that says how many are left out,
    "more": how many lines are left out, "total": its lines}."""
    lines = text.split("\n")
    more = max(0, len(lines) - head - tail)
    if not more:
        return {"text": text, "more": 0, "total": len(lines)}
    said = [f"... {more:,} lines not shown here: the whole is in the JSON record ..."] if tail else []
    return {"text": "\n".join(lines[:head] + said + lines[len(lines) - tail:]), "more": more, "total": len(lines)}


def _annotated(file, entries, shared, prefix, colors, shown_nests):
    """The lines of the functions of ``file`` that hold ``entries`` (verdicts), each with its verdicts' marks and
    the kernels among ``colors`` ({kernel id: its colour}) and loop nests among ``shown_nests`` (those on the page)
    it ran in. A run of lines in the same kernels shares one time share: said on its first line, shaded on all."""
    by_line = {}
    for e in entries:
        for line in range(e.line, e.end_line + 1):
            by_line.setdefault(line, []).append(e)
    spans = _function_spans(file.source, {e.line for e in entries})
    annotated = []
    for number, html_line in enumerate(highlight.lines(file.source, "python"), 1):
        if not any(start <= number <= end for start, end in spans):
            continue
        here = [e for e in by_line.get(number, []) if e.status]
        statuses = sorted({e.status for e in here}, key=SEVERITY.index)
        notes = []
        if here and here[0].line == number:
            for e in here:
                why = _bounded([r for r in e.why if not (r.not_vectorized and r.text in shared)
                                and r.kind not in (ReasonKind.FIX, *SAID_ONCE)])
                notes.append({"status": e.status, "text": f"{e.status}{_via(e)}" + (": " + "; ".join(why) if why else ""),
                              "vectorized": e.vectorized, "how": ", ".join(e.how)})
        timed = max((e for e in here if e.time_share is not None), key=lambda e: e.time_share, default=None)
        kernels = sorted({k for e in here for k in e.kernels if k in colors})
        share = timed.time_share if timed else None
        before = annotated[-1] if annotated else {}
        annotated.append({
            "number": number, "html": html_line, "status": statuses[0] if statuses else "", "statuses": statuses,
            "kernels": kernels, "notes": notes, "color": colors[kernels[0]] if kernels else None,
            "share_said": share is not None and (before.get("kernels"), before.get("share")) != (kernels, share),
            "nests": sorted({n for e in here for n in e.nests if n in shown_nests}),
            "open": any(n["status"] != "parallel" for n in notes),  # good news stays folded
            "gap": bool(annotated) and annotated[-1]["number"] != number - 1,
            "vectorized": here[0].vectorized if here else None,
            "share": share, "time_s": timed.time_s if timed else None,
            "heat": charts.heat(timed.time_share) if timed else None, "id": f"{prefix}-L{number}"})
    return annotated


def _bounded(reasons):
    """The reasons as clauses, at most REASONS_PER_KIND of each kind (a call in an unrolled loop runs in hundreds of
    nests, each serial or not fused with the next), and how many more of a kind were left out and where they are."""
    kept, left = [], {}
    for r in reasons:
        if sum(1 for k in kept if k.kind == r.kind) < REASONS_PER_KIND:
            kept.append(r)
        else:
            left[r.kind] = left.get(r.kind, 0) + 1
    return [reason(r) for r in kept] + [f"and {n} more {LEFT_OUT.get(kind, f'{kind} reasons')} (not shown here: "
                                        "inspector render --format json on the JSON record lists them all)"
                                        for kind, n in left.items()]


def _via(e):
    """" (called from line 63)" or " (called from samples/x.py:15, line 40)": the call sites of a verdict."""
    if not e.via:
        return ""
    return " (called from " + ", ".join(f"line {n}" if f == e.file else f"{f}:{n}" for f, n in e.via) + ")"


def _function_spans(source, lines):
    """(first, last) line, decorators included, of the innermost function around each of ``lines``."""
    try:
        functions = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    except (SyntaxError, ValueError):
        return []
    spans = set()
    for line in lines:
        around = [f for f in functions if f.lineno <= line <= f.end_lineno]
        if around:
            f = min(around, key=lambda f: f.end_lineno - f.lineno)
            spans.add((min([f.lineno] + [d.lineno for d in f.decorator_list]), f.end_lineno))
    return sorted(spans)
