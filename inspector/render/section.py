"""One compiled variant's section of an HTML page (a sample's variant, or a program's function), as typed views, as
coverage.py's HTML reporter reads ``LineData``: its source line by line (``SourceLine``, with its ``LineNote``s) per
file (``FileView``), its kernels (``KernelView``, their ``KernelLine``s), where its time went (``Cost``) and its
output code (``CodeCut``). ``section`` builds one, whole; the templates print it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Union

from inspector.model.lines import EAGER, FunctionSpan
from inspector.model import (STATUSES, CompiledCode, Fix, FunctionRun, Kernel, LineStatus, LineVerdict, LoopNest,
                             Reason, ReasonKind, SampleVariant, ProgramFunction, SourceFile, Status, TimeSplit,
                             Vectorized)
from inspector.render import charts, fixes as fix_words, highlight, said
from inspector.render.words import reason, sentence

Unit = Union[SampleVariant, ProgramFunction]
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
# lines of one kernel's code (highlighted: about 700 bytes each) and of one graph's output code (its first and last
# halves: the kernels, then the wrapper's call) shown on a page: an unrolled solver's fused kernel has tens of thousands
KERNEL_LINES = 500
OUTPUT_CODE_LINES = 2000
REASONS_PER_KIND = 5  # reasons of one kind shown under one source line (see _bounded)
SAID_ONCE = (ReasonKind.MACHINE_DISAGREES, ReasonKind.MACHINE_LANE)  # shown once above a variant's source
LEFT_OUT = {"serial": "single-threaded loop nests", "not-fused": "pairs of loops Inductor did not fuse"}
FILE_KINDS = {"sample": "the sample", "user": "your module", "library": "library", "stdlib": "standard library"}
REST = (("wrapper_s", "wrapper: between kernels, inside compiled graphs"),
        ("torch_wrappers_s", "torch's wrappers around the graphs (Dynamo's, AOTAutograd's)"),
        ("guards_s", "guards: checking that the cached compiled code applies, before each call"),
        ("outside_graphs_s", "outside compiled graphs: guards, conversions, Python between graphs"))
# the outside row where guards are a row apart: with torch's wrappers a row of their own too (no graph break), or not
APART = {True: "outside compiled code: conversions, Python between graphs",
         False: "outside compiled graphs: torch's wrappers, conversions, Python between graphs"}
OUTSIDE = "outside compiled graphs, all the lines that ran eagerly together"  # a line's time, where it ran eagerly


@dataclass(frozen=True)
class StatusKey:
    """One line status of the legend: its mark, what it means, and its name."""

    status: str
    mark: str
    text: str
    label: str


LEGEND = tuple(StatusKey(s, m, STATUS_TEXT[s], STATUS_TEXT[s].split(":")[0]) for s, m in STATUS_MARK.items())


@dataclass(frozen=True)
class LineNote:
    """One verdict of a source line, as said under it: its status and mark, why, how vectorized, its evidence."""

    status: LineStatus
    mark: str
    text: str
    vectorized: Optional[Vectorized]
    how: str


@dataclass(frozen=True)
class SourceLine:
    """One line of a file of a compiled section: its number, highlighted HTML and id; its verdicts' status (the
    worst: its CSS class, "" for none) and marks (worst news first, then "v" when vectorized), the kernels (those on
    the page) and loop nests it ran in, its notes (``open``: shown from the start, as bad news is), and the time
    share of its kernels with its heat, said on the first of a run of lines in the same kernels (``share_said``), or
    for a line that ran eagerly the time outside compiled graphs (``timed``: which of the two); ``gap``: lines left
    out before it."""

    number: int
    html: str
    id: str
    status: str
    marks: str
    kernels: tuple[str, ...]
    color: Optional[str]  # its first kernel's
    nests: tuple[str, ...]
    notes: tuple[LineNote, ...]
    open: bool
    gap: bool
    share: Optional[float]
    share_said: bool
    time_s: Optional[float]
    timed: str
    heat: Optional[charts.Heat]


@dataclass(frozen=True)
class FileView:
    """A file of a compiled section: the lines of its functions that hold verdicts, whether it opens (the sample and
    the user's modules do; libraries are folded), and what kind of file it is and what ran in parallel, in words."""

    file: SourceFile
    lines: tuple[SourceLine, ...]
    open: bool
    kind: str
    summary: str


@dataclass(frozen=True)
class KernelLine:
    """One line of a kernel's code: its number, highlighted HTML, the evidence it shows, the loop nest it is in and,
    on a nest's first line, the nest in words."""

    number: int
    html: str
    evidence: Optional[str]
    nest: Optional[LoopNest]
    label: Optional[str]


@dataclass(frozen=True)
class KernelView:
    """One kernel of a compiled section: its first KERNEL_LINES lines of code (how many lines and loop nests are
    left out), the source lines it computes, and its colour (its lines' stripe)."""

    k: Kernel
    code: tuple[KernelLine, ...]
    more_lines: int
    total_lines: int
    more_nests: int
    lines: tuple[str, ...]  # "42" in the sample, "helpers.py:7" elsewhere
    color: str


@dataclass(frozen=True)
class CodeCut:
    """A piece of code as shown: whole, or its first and last lines around a line that says how many are left out."""

    text: str
    more: int
    total: int


@dataclass(frozen=True)
class CostRow:
    """A part of a profiled call outside its kernels: what it is, its seconds and share of the call."""

    label: str
    s: float
    share: float


@dataclass(frozen=True)
class Cost:
    """Where a compiled section's time went: its kernels that were timed (costliest first) and the rest of the
    profiled call (``split``: None where kernel times were not measured), the fewer threads its parallel kernels
    were also timed on, and its compile phases."""

    timed: tuple[KernelView, ...]
    split: Optional[TimeSplit]
    rest: tuple[CostRow, ...]
    fewer_threads: tuple[int, ...]
    phases: tuple[charts.Phase, ...]


@dataclass(frozen=True)
class CompiledSection:
    """One compiled variant (or program's function) as its section shows it: what it is (``v``), its anchor and
    whether it opens, whether it ran (``ok``) or failed (where: ``error_line``, ``error_detail``), a program's
    function's run, its sentence, what is said once above its source (why SIMD was off, the machine code overruling
    Inductor, the fixes tried on it), its files, its kernels and output code (how many of each are left out), and
    its cost."""

    v: Unit
    anchor: str
    open: bool
    ok: bool
    preview: bool
    error_line: Optional[int]
    error_detail: Optional[str]
    run: Optional[FunctionRun]
    sentence: str
    shared: tuple[str, ...]
    overruled: tuple[str, ...]
    tried: tuple[str, ...]
    files: tuple[FileView, ...]
    kernels: tuple[KernelView, ...]
    more_kernels: int
    output_code: tuple[CodeCut, ...]
    more_code: int
    cost: Cost


def anchor(vid: str) -> str:
    """The HTML id of a variant's section (its lines' ids start with it)."""
    return "v-" + "".join(c if c.isalnum() else "-" for c in vid)


def line_id(vid: str, files: Sequence[SourceFile], display: Optional[str], line: Optional[int]) -> str:
    """The id of a source line in a variant's section (the sample's lines without their file's index)."""
    index = next((i for i, f in enumerate(files) if f.display == display), 0)
    prefix = anchor(vid) if files and files[index].kind == "sample" else f"{anchor(vid)}-f{index}"
    return f"{prefix}-L{line}"


def section(v: Unit, files: Sequence[SourceFile], open: bool = False, limit: Optional[int] = None,
            tried: Sequence[Fix] = ()) -> CompiledSection:
    """Per-line verdicts of one compiled variant joined to the highlighted source of each file and to its kernels.

    Only the functions the variant reaches are shown; libraries are folded; reasons shared by many lines (why SIMD
    was off) are lifted out of the per-line notes and shown once. ``limit``: at most this many kernels (the
    costliest first where they were timed) and one graph's whole output code, so that a program with hundreds of
    graphs gives a page that opens quickly; the rest is in the record. ``tried``: the fixes tried on it, said once
    above its source.
    """
    code = v.code
    shared = tuple(sorted({said.reason(r) for e in code.lines for r in e.why if r.not_vectorized}))
    ordered = sorted(code.kernels, key=lambda k: (k.cost.time_s is None, -(k.cost.time_s or 0))) if limit \
        else code.kernels
    shown = list(ordered[:limit] if limit else ordered)
    colors = {k.id: KERNEL_COLORS[i % len(KERNEL_COLORS)] for i, k in enumerate(shown)}  # a line and its kernels
    kernels = tuple(_kernel(k, [e for e in code.lines if k.id in e.kernels], files[0].display, colors[k.id])
                    for k in shown)
    output_code = [c for g in code.graphs for c in g.output_code]
    shown_code = tuple(_cut(text, OUTPUT_CODE_LINES // 2, OUTPUT_CODE_LINES // 2)
                       for text in (output_code[:1] if limit else output_code))
    return CompiledSection(
        v=v, anchor=anchor(v.id), open=open,
        ok=v.status == Status.OK and (not isinstance(v, SampleVariant) or v.compiled),
        preview=isinstance(v, SampleVariant) and v.preview,
        error_line=v.error_line if isinstance(v, SampleVariant) else None,
        error_detail=v.error_detail if isinstance(v, SampleVariant) else None,
        run=None if isinstance(v, SampleVariant) else v.run, sentence=sentence(v, files[0].display),
        shared=shared, overruled=tuple(dict.fromkeys(said.reason(r) for e in code.lines for r in e.why
                                                 if r.kind in SAID_ONCE)),
        tried=_tried(v, tried) if isinstance(v, SampleVariant) else (),
        files=_files(v.id, code, files, shared, colors, shown),
        kernels=kernels, more_kernels=len(code.kernels) - len(shown), output_code=shown_code,
        more_code=len(output_code) - len(shown_code), cost=_cost(code, kernels))


def _files(vid: str, code: CompiledCode, files: Sequence[SourceFile], shared: tuple[str, ...],
           colors: dict[str, str], shown: Sequence[Kernel]) -> tuple[FileView, ...]:
    """The files holding the variant's verdicts, each with its annotated lines."""
    nests = {f"{k.id}#{n.index}" for k in shown for n in k.loop_nests if n.lines[0] <= KERNEL_LINES}
    views = []
    for i, file in enumerate(files):
        entries = [e for e in code.lines if e.file == file.display]
        if entries:
            prefix = anchor(vid) if file.kind == "sample" else f"{anchor(vid)}-f{i}"
            placed = {e.line for e in entries if e.status}
            parallel = sum(1 for e in entries if e.status == LineStatus.PARALLEL)
            spans = next((s for display, s in code.functions if display == file.display), ())
            views.append(FileView(file, _annotated(file, entries, spans, shared, prefix, colors, nests),
                                  file.kind in ("sample", "user"), FILE_KINDS[file.kind],
                                  f"{parallel} of {len(placed)} lines with a verdict ran in parallel loops"))
    return tuple(views)


def _cost(code: CompiledCode, kernels: Sequence[KernelView]) -> Cost:
    """Where the time went: the timed kernels, costliest first, the rest of the profiled call, the compile phases."""
    split = code.time_split
    total = split.total_s if split else None
    rest = [(APART[split.torch_wrappers_s is not None] if key == "outside_graphs_s" and split.guards_s is not None
             else label, getattr(split, key)) for key, label in REST] if split else []
    timed = sorted((kv for kv in kernels if kv.k.cost.time_s is not None), key=lambda kv: -(kv.k.cost.time_s or 0))
    return Cost(tuple(timed), split if total else None,
                tuple(CostRow(label, s, s / total) for label, s in rest if s is not None and total),
                tuple(int(p[0]) for p in code.threads.points[:-1]) if code.threads else (),  # the last: torch's
                charts.phase_bar(code.compile_phases))


def _tried(v: SampleVariant, tried: Sequence[Fix]) -> tuple[str, ...]:
    """What trying each fix of ``tried`` on ``v`` measured, in words, each once: those about its source lines in the
    order of the first line each is about (in the order they were tried where they share it), then those about the
    whole function (static shapes)."""
    first: dict[tuple[str, int], int] = {}
    for i, e in enumerate(v.code.lines):
        first.setdefault((e.file, e.line), i)
    position = {t.id: i for i, t in enumerate(v.trials)}

    def order(fix: Fix) -> tuple[int, int]:
        return (min((first[(f, n)] for f, n in fix.lines if f is not None and n is not None and (f, n) in first),
                    default=len(first)), position.get(fix.tried.id, 0) if fix.tried else 0)
    return tuple(dict.fromkeys(fix_words.trial(f.tried) for f in sorted(tried, key=order) if f.tried))


def _kernel(k: Kernel, entries: Sequence[LineVerdict], sample: str, color: str) -> KernelView:
    """One kernel of the kernel table: its first KERNEL_LINES lines of code highlighted, with their evidence and loop
    nests, how many lines and nests are left out, and the source lines it computes (``entries``, their verdicts),
    each (file, line) once however many call chains reach it; ``sample``: the display name shown as a bare line."""
    language = {"cpp": "cpp", "triton": "triton"}.get(k.backend, "python")
    evidence = {e.line: e.what for e in k.evidence}
    nest_of = {line: n for n in k.loop_nests for line in range(n.lines[0], n.lines[1] + 1)}
    head = _cut(k.code, KERNEL_LINES)
    code = tuple(KernelLine(i, h, evidence.get(i), nest_of.get(i), nest_of[i].describe()
                            if i in nest_of and nest_of[i].lines[0] == i else None)
                 for i, h in enumerate(highlight.lines(head.text, language), 1)) if k.code else ()
    return KernelView(k, code, head.more, head.total, sum(1 for n in k.loop_nests if n.lines[1] > KERNEL_LINES),
                      tuple(dict.fromkeys(str(e.line) if e.file == sample else f"{e.file}:{e.line}"
                                          for e in entries)), color)


def _cut(text: str, head: int, tail: int = 0) -> CodeCut:
    """``text``, or its first ``head`` and last ``tail`` lines around a line that says how many are left out."""
    lines = text.split("\n")
    more = max(0, len(lines) - head - tail)
    if not more:
        return CodeCut(text, 0, len(lines))
    said = [f"... {more:,} lines not shown here: the whole is in the JSON record ..."] if tail else []
    return CodeCut("\n".join(lines[:head] + said + lines[len(lines) - tail:]), more, len(lines))


def _annotated(file: SourceFile, entries: Sequence[LineVerdict], spans: Sequence[FunctionSpan],
               shared: tuple[str, ...], prefix: str, colors: dict[str, str],
               shown_nests: set[str]) -> tuple[SourceLine, ...]:
    """The lines of the functions of ``file`` that hold ``entries`` (verdicts; ``spans``: those functions), each with
    its verdicts' marks and the kernels among ``colors`` ({kernel id: its colour}) and loop nests among
    ``shown_nests`` (those on the page) it ran in. A run of lines in the same kernels shares one time share: said on
    its first line, shaded on all."""
    by_line: dict[int, list[LineVerdict]] = {}
    for e in entries:
        for line in range(e.line, e.end_line + 1):
            by_line.setdefault(line, []).append(e)
    annotated: list[SourceLine] = []
    for number, html_line in enumerate(highlight.lines(file.source, "python"), 1):
        if any(f.first <= number <= f.last for f in spans):
            here = [e for e in by_line.get(number, []) if e.status]
            annotated.append(_line(number, html_line, here, shared, f"{prefix}-L{number}", colors, shown_nests,
                                   annotated[-1] if annotated else None))
    return tuple(annotated)


def _line(number: int, html: str, here: Sequence[LineVerdict], shared: tuple[str, ...], id: str,
          colors: dict[str, str], shown_nests: set[str], before: Optional[SourceLine]) -> SourceLine:
    """One source line with the verdicts placed on it (``here``), after the line ``before`` it on the page."""
    statuses = sorted({e.status for e in here if e.status}, key=SEVERITY.index)
    notes = tuple(_note(e, shared) for e in here) if here and here[0].line == number else ()
    timed = max((e for e in here if e.time_share is not None), key=lambda e: e.time_share or 0, default=None)
    kernels = tuple(sorted({k for e in here for k in e.kernels if k in colors}))
    share = timed.time_share if timed else None
    vectorized = here[0].vectorized if here else None
    return SourceLine(
        number=number, html=html, id=id, status=statuses[0] if statuses else "",
        marks="".join(STATUS_MARK[s] for s in statuses) + ("v" if vectorized == Vectorized.ALL else ""),
        kernels=kernels, color=colors[kernels[0]] if kernels else None,
        nests=tuple(sorted({n for e in here for n in e.nests if n in shown_nests})), notes=notes,
        open=any(n.status != LineStatus.PARALLEL for n in notes),  # good news stays folded
        gap=before is not None and before.number != number - 1, share=share,
        share_said=share is not None and (before is None or (before.kernels, before.share) != (kernels, share)),
        time_s=timed.time_s if timed else None, heat=charts.heat(share) if share is not None else None,
        timed=OUTSIDE if timed and timed.status in EAGER else "its kernels")


def _note(e: LineVerdict, shared: tuple[str, ...]) -> LineNote:
    """One verdict under its line: its reasons but those said once above the source."""
    status = e.status or LineStatus.UNKNOWN
    why = _bounded([r for r in e.why if not (r.not_vectorized and said.reason(r) in shared)
                    and r.kind not in (ReasonKind.FIX, *SAID_ONCE)])
    return LineNote(status, STATUS_MARK[status], f"{status}{_via(e)}" + (": " + "; ".join(why) if why else ""),
                    e.vectorized, ", ".join(e.how))


def _bounded(reasons: Sequence[Reason]) -> list[str]:
    """The reasons as clauses, at most REASONS_PER_KIND of each kind (a call in an unrolled loop runs in hundreds of
    nests, each serial or not fused with the next), and how many more of a kind were left out and where they are."""
    kept: list[Reason] = []
    left: dict[str, int] = {}
    for r in reasons:
        if sum(1 for k in kept if k.kind == r.kind) < REASONS_PER_KIND:
            kept.append(r)
        else:
            left[r.kind] = left.get(r.kind, 0) + 1
    return [reason(r) for r in kept] + [f"and {n} more {LEFT_OUT.get(kind, f'{kind} reasons')} (not shown here: "
                                        "inspector render --format json on the JSON record lists them all)"
                                        for kind, n in left.items()]


def _via(e: LineVerdict) -> str:
    """" (called from line 63)" or " (called from samples/x.py:15, line 40)": the call sites of a verdict."""
    if not e.via:
        return ""
    return " (called from " + ", ".join(f"line {n}" if f == e.file else f"{f}:{n}" for f, n in e.via) + ")"
