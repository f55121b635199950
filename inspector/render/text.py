"""The text renderer (rich): the seed-style timing table and one sentence per compiled variant, the breaks
listing, and a comparison's few lines per variant."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from typing import Optional

from rich.console import Console
from rich.table import Table

from inspector.model import (Analysis, BreaksView, Comparison, GraphBreak, ProgramAnalysis, SampleAnalysis, Status,
                             TrialResult)
from inspector.render import comparison as comparison_words, fixes as fix_words, said, views
from inspector.render.base import Renderer
from inspector.render.hotspots import views as hot_views
from inspector.render.words import (break_evens, child_process, compile_ids, error_parts, match, places,
                                    line_at, program_title, ratio, recompile_why, run_notes, seconds, sentence)

WIDTH = 110


class TextRenderer(Renderer):
    """``full``: the report with sentences, failures and breaks (else the table and its notes); ``color``: ANSI
    styles, for a terminal; ``width``: columns (the table's layout depends on it)."""

    name = "text"

    def __init__(self, full: bool = True, color: bool = False, width: int = WIDTH) -> None:
        self.full, self.color, self.width = full, color, width

    def _console(self) -> Console:
        return Console(file=io.StringIO(), width=self.width, force_terminal=self.color,  # text even in Jupyter
                       color_system="standard" if self.color else None, highlight=False, soft_wrap=True,
                       force_jupyter=False)

    def report(self, analysis: SampleAnalysis) -> str:
        """The table; with ``full``, per-variant sentences, failures and breaks.

        Mismatches are not repeated here: the CLI reports them on stderr as soon as they are known.
        """
        console = self._console()
        heads = views.headlines(analysis)
        for h in heads:
            console.print(" ".join(h.sentences) if len(heads) == 1 else h.short, markup=False, style="bold")
        caution = views.caution(analysis)
        if caution:
            console.print(f"Caution: {caution}.", markup=False, style="yellow")
        if cuda := views.cuda_graphs(analysis):
            console.print(cuda, markup=False)
        found, idle = views.changes(analysis), views.tried_without_gain(analysis)
        if found or idle:
            console.print("What to change, the most time at stake first:" if found else
                          "What to change: no advice here, each fix inspector tried measured no gain.", markup=False)
        for n, c in enumerate(found, 1):
            lines = {(ref.file, ref.line): None for ref in c.lines}
            where = f" (line{'s' if len(lines) > 1 else ''} {places(lines, analysis.sample.path)})" if lines else ""
            _effects(console, f"  {n}. {c.text}{where}", c, stake=True)
        for c in idle:
            _effects(console, f"  tried, no gain (not advice): {c.text}", c, stake=False)
        _rewrites(console, views.rewrites(analysis.rewrites, analysis.variants), views.numba_hint(analysis))
        if found or idle:
            console.print("  (time at stake: measured, a part's share of a profiled call applied to the time per "
                          "call; effects: measured where it says \"tried\", the fix applied by "
                          "inspector, not by editing your code; the others are not tried by inspector)", markup=False)
        rows = views.table(analysis)
        console.print(timing_table(analysis, rows))
        for note in rows.notes:
            console.print(f"  {note.number}. {note.text}", markup=False)
        for s in rows.skipped:
            console.print(f"  skipped: {', '.join(s.variants)} ({s.why})", markup=False)
        for crossover in views.crossovers(analysis):
            console.print(crossover, markup=False)
        if self.full:
            for v in analysis.variants:
                if v.status not in (Status.OK, Status.SKIPPED):
                    _failure(console, v.id, v.status, v.error)
                if v.ok_compiled:
                    console.print(f"{v.id}: {sentence(v, analysis.sample.path)}", markup=False)
                    for bound in v.code.bounds:
                        console.print(f"    bounded: {bound}", markup=False)
                    for b in v.code.breaks:
                        _graph_break(console, b)
            _not_understood(console, analysis)
        return _out(console)

    def program(self, analysis: ProgramAnalysis) -> str:
        """Per compiled function of a program's run: calls, compiles and time, then its sentence, breaks and
        recompilations (each with the call it happened at and the guard that failed)."""
        console = self._console()
        p = analysis.program
        for hot in hot_views(p):
            console.print(hot.sentence, markup=False, style="bold")
            for note in hot.notes:
                console.print(f"  {note}", markup=False)
        for h in views.program_headlines(analysis):
            console.print(h.sentence, markup=False, style="bold")
            if h.paid:
                console.print(f"  {h.paid}", markup=False)
        table = Table(title=program_title(analysis), title_justify="left")
        columns = ["function", "calls", "calls that recompiled", "compile", "time in it", "per call", "in kernels"]
        for name in columns + (["eager, same arguments"] if p.eager else []):
            table.add_column(name, justify="left" if name == "function" else "right")
        rows = views.program_rows(analysis)
        for r in rows:
            v, run = r.v, r.v.run
            share = f"{100 * r.kernels_share:.0f} %" if r.kernels_share is not None else "-"
            against = f" (compiled: {ratio(r.vs_eager)})" if r.vs_eager else ""
            table.add_row(v.id, str(run.calls), str(len(run.recompiles)), seconds(run.compile_s), seconds(run.total_s),
                          seconds(v.timing.median_s if v.timing else None), share,
                          *([seconds(r.eager_s) + against] if p.eager else []))
        console.print(table if p.functions else "the program compiled nothing with torch.compile", markup=False)
        for child in p.children:
            console.print(f"child process {child_process(child)}", markup=False)
        for v in (r.v for r in rows):
            if v.status == Status.OK:
                console.print(f"{v.id}: {sentence(v, analysis.sample.path)}", markup=False)
                if v.error:
                    _failure(console, f"    call {v.run.error_call}", "raised", v.error)
            else:
                _failure(console, v.id, v.status, v.error)
            for note in run_notes(v.run):
                console.print(f"    {note}", markup=False)
            for b in v.code.breaks:
                _graph_break(console, b)
            for c in v.run.recompiles:
                why = recompile_why(c)
                ids = f" as {compile_ids(c)}" if c.compile_ids else ""
                console.print(f"    recompiled at call {c.call}{ids} ({seconds(c.seconds)}): {why}", markup=False)
            if v.code.recompilation and v.code.recompilation.limit:
                console.print(f"    {said.recompilation(v.code.recompilation)}", markup=False, style="yellow")
        fixes = views.program_fixes(analysis)
        if fixes:
            console.print("Could be tried (not measured: inspector run tries no fix on your program):", markup=False)
        for f in fixes:
            console.print(f"  {f.function}: {f.text}", markup=False)
        _not_understood(console, analysis)
        return _out(console)

    def breaks(self, view: BreaksView) -> str:
        """Per compiled variant: its graphs, each distinct break once, its cost, the flags tried, warnings."""
        console = self._console()
        console.print(f"{view.sample} · torch {view.torch} · population {view.population:,}", markup=False)
        for row in view.variants:
            if row.status != Status.OK:
                console.print()
                _failure(console, row.variant, row.status, row.error)
                continue
            ops = ", ".join(str(g.op_count) for g in row.graphs)
            head = f"\n{row.variant}: {len(row.graphs)} graph{'s' if len(row.graphs) != 1 else ''} (ops: {ops})"
            if row.cost:
                c = row.cost
                head += (f"; {c.outside_fraction:.0%} of each call outside compiled graphs (Python between "
                         f"graphs, guards, conversions: {seconds(c.outside_s)} of {seconds(c.outside_s + c.inside_s)})")
            console.print(head + ("; no graph breaks" if not row.breaks else ""), markup=False, style="bold")
            for b in row.breaks:
                times = f" ({b.count}x)" if b.count > 1 else ""
                console.print(f"  {b.file}:{b.line}{times}  {b.code or ''}", markup=False)
                if len(b.chain) > 1:
                    console.print("      reached from " + " -> ".join(f"{f}:{n}" for f, n in b.chain[:-1]),
                                  markup=False)
                console.print(f"      {said.break_reason(b)}", markup=False, style="red")
                if b.failed_after:
                    console.print(f"      then {said.after(b)}", markup=False)
                for label, value in (("torch", said.explanation(b)), *(("hint", h) for h in b.hints),
                                     (b.gb_id, b.url), ("fix", said.usual_fix(b.usual))):
                    if value:
                        console.print(f"      {label}: {value}", markup=False)
            for t in row.tried:
                console.print(_tried(t), markup=False)
            for w in row.warnings:
                console.print(f"  warning: {said.warning(w)}", markup=False, style="yellow")
            for bound in row.bounds:
                console.print(f"  bounded: {bound}", markup=False)
        if view.rewrites:
            console.print()
        _rewrites(console, views.rewrites(view.rewrites), None)
        return _out(console)

    def comparison(self, comparison: Comparison) -> str:
        """A few lines per variant and run pair."""
        console = self._console()
        for pair in comparison.pairs:
            console.print(f"{comparison.sample.path}: {pair.a} → {pair.b}", markup=False, style="bold")
            for w in pair.warnings:
                console.print(f"  warning: {said.pair_warning(w)}", markup=False, style="yellow")
            for v in pair.variants:
                console.print(f"  {v.id}: {comparison_words.headline(v)}", markup=False)
                for note in comparison_words.notes(pair, v):
                    console.print(f"    {note}", markup=False)
            for name, ids in ((pair.a, pair.only_a), (pair.b, pair.only_b)):
                if ids:
                    console.print(f"  only under {name}: {', '.join(ids)}", markup=False)
            for h in pair.hotspots:
                console.print(f"  hot: {comparison_words.hot_sentence(pair, h)}", markup=False)
                console.print(f"    per generation (its speedup over as written), {pair.a} → {pair.b}:", markup=False)
                for c in h.candidates:
                    console.print(f"    {comparison_words.candidate_line(pair, c)}", markup=False)
        return _out(console)


def timing_table(analysis: SampleAnalysis, rows: views.Table) -> Table:
    """The timings table of views.table's ``rows``: a note's number beside the time it qualifies."""
    sample = analysis.sample
    population = f" · population {sample.population:,}" if sample.population else ""
    table = Table(title=f"{sample.title}{population}", title_justify="left")
    for name in ("variant", "time", "vs numpy", "vs fastest", "break-even", "match"):
        table.add_column(name, justify="left" if name == "variant" else "right", no_wrap=name == "variant")
    for r in rows.rows:
        v = r.v
        time = seconds(r.time_s) if v.status == Status.OK else v.status
        marks = "".join(f" [{n}]" for n in r.marks)
        table.add_row(v.id, time + marks, ratio(r.vs_numpy), ratio(r.vs_fastest) if r.vs_fastest != 1 else "fastest",
                      break_evens(v.speedups), match(v))
    return table


def _rewrites(console: Console, found: Sequence[views.RewriteView], numba: Optional[str]) -> None:
    """inspector's rewrites: each advised one's code to copy, check and runs; those that failed their check, those
    declined; how to get the numba rows."""
    for r in found:
        if r.advice:
            console.print(f"  rewrite: {r.title} ({r.id}, written by inspector; "
                          f"{'the new functions, whole' if r.language == 'python' else 'a diff against your lines'}):",
                          markup=False)
            console.print(textwrap.indent(r.code.rstrip("\n"), "      "), markup=False, soft_wrap=True)
            for said in (f"checked: {r.check}", *r.runs, *(f"may differ: {n}" for n in r.notes),
                         *(f"left as it was: {d}" for d in r.declined)):
                console.print(f"    {said}", markup=False)
        elif r.failed:
            console.print(f"  rewrite failed its check (not advice): {r.title} ({r.id}): {r.check}", markup=False)
        else:
            console.print(f"  {r.variant}: {'; '.join(r.declined or r.runs)}", markup=False)
    if numba and found:
        console.print(f"  ({numba})", markup=False)


def _effects(console: Console, head: str, c: views.ChangeView, stake: bool) -> None:
    """A change's line: its words, then where it applies, with the time at stake (``stake``) and what trying it
    measured: in brackets after it for one variant, on a line each for several."""
    said = [(f"{a.stake} in " if stake else "") + a.variant + (f"; {a.tried}" if a.tried else "") for a in c.at]
    if len(said) == 1:
        console.print(f"{head} [{said[0]}]", markup=False)
        return
    console.print(head, markup=False)
    for line in said:
        console.print(f"      [{line}]", markup=False)


def _out(console: Console) -> str:
    """What was printed, with any lone surrogate (an undecodable byte in a user's message) as its escape \\udcXX,
    as the HTML shows it, so that any terminal can print it."""
    printed = console.file
    assert isinstance(printed, io.StringIO)  # as _console made it
    return printed.getvalue().encode("utf-8", "backslashreplace").decode("utf-8")


def _failure(console: Console, name: str, status: str, error: Optional[str]) -> None:
    """A variant or function that failed: its error's first line, then torch's further lines as they came."""
    head, rest = error_parts(error)
    console.print(f"{name}: {status}: {head}".rstrip(": "), markup=False, style="red")
    if rest:
        console.print(textwrap.indent(rest, "    "), markup=False)


def _graph_break(console: Console, b: GraphBreak) -> None:
    """One graph break of a variant's summary: where, torch's reason, and what became of the code after it."""
    where = line_at(b, b.where == "sample")
    then = f"; then {said.after(b)}" if b.failed_after else ""
    console.print(f"    graph break at {where}: {said.break_reason(b)}{then}", markup=False)


def _tried(t: TrialResult) -> str:
    """A fix tried on a variant, as the breaks listing says it: a config flag with the breaks it removed and the
    medians; another with what it measured and its steady calls at further sizes."""
    if t.spec.config:
        e, flag = t.effect, t.spec.config[0]
        gone = f"break at line {', '.join(map(str, e.gone))} gone" if e.gone else "the break stayed"
        return (f"  tried --config {flag}: {e.breaks_before} -> {e.breaks_after} breaks, {gone}, "
                f"median {seconds(t.median_before_s)} -> {seconds(t.median_after_s)}"
                + (f" ({t.status}: {t.error})" if t.status != Status.OK else ""))
    return f"  {fix_words.trial(t)}" + "".join(f"; at {s.population:,}: steady call {seconds(s.steady_before_s)} -> "
                                               f"{seconds(s.steady_after_s)}" for s in t.sizes)


def _not_understood(console: Console, analysis: Analysis) -> None:
    for p in analysis.parse:
        if p.problems:
            console.print(f"not understood: {len(p.problems)} of {p.read} {p.artifact} (see the HTML report)",
                          markup=False, style="yellow")
