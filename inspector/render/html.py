"""The HTML renderer: self-contained pages (inline CSS, JS and SVG), everything from code or logs escaped. Each page
is a template over typed views (``views``, ``section``, ``compared``, ``folder``, ``charts``): no dict reaches a
template, and every figure, threshold and path it prints comes from a value."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

import jinja2
from markupsafe import Markup, escape

from inspector.model import Backend, Comparison, LineRef, ProgramAnalysis, SampleAnalysis, Status
from inspector.model.comparison import CLEAR
from inspector.render import charts, compared, folder, highlight, said, section, views
from inspector.render.comparison import UNIT
from inspector.render.hotspots import sampled, views as hot_views
from inspector.render.base import Renderer
from inspector.render.words import (between, break_evens, child_process, compile_ids, error_parts, launched, match,
                                    profiled_call, program_title, ratio, recompile_why, run_notes, seconds,
                                    warm_compile, without_profiler)

TEMPLATES = Path(__file__).parent / "templates"
STYLESHEET = Path(__file__).parent / "static" / "style.css"
PROGRAM_LIMIT = 12  # kernels shown per compiled function of a program (see section.section): each is tens of kB


@functools.lru_cache(maxsize=None)
def environment(index: Optional[str] = None) -> jinja2.Environment:
    """The jinja environment of every page: autoescaping on, the shared stylesheet and filters; ``index``: the page
    a report links back to at its top (a folder's index), or None. One per ``index``: its templates compile once."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                             bytecode_cache=_bytecode_cache())
    env.filters.update(seconds=seconds, ratio=ratio, between=between, break_evens=break_evens, match=match,
                       recompile_why=recompile_why, compile_ids=compile_ids, run_notes=run_notes,
                       error_parts=error_parts, launched=launched, breakable=breakable, highlighted=highlighted,
                       said=said.said, after=said.after, row=said.row, usual_fix=said.usual_fix,
                       break_reason=said.break_reason, explanation=said.explanation, warm_compile=warm_compile,
                       profiled_call=profiled_call, without_profiler=without_profiler)
    env.globals.update(stylesheet=STYLESHEET.read_text(encoding="utf-8"), index=index, Status=Status, Backend=Backend,
                       status_keys=section.LEGEND, anchor=section.anchor)
    return env


def _bytecode_cache() -> Optional[jinja2.BytecodeCache]:
    """jinja's cache of compiled templates, in a folder of this user's under the temporary directory (jinja's own,
    mode 0700; keyed by each template's source): a process that writes a page compiles none of them again (a tenth
    of a second of each CLI call that writes one). None where that folder cannot be made safely: they compile."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


def breakable(name: str) -> Markup:
    """A long identifier, escaped, that may wrap after each underscore (a kernel's name), not inside a word."""
    return Markup("_<wbr>").join(escape(name).split("_"))


def highlighted(code: str, language: str) -> Markup:
    """``code`` highlighted as the source view is (pygments), its lines joined: for a ``<pre class="hl">``."""
    return Markup("\n".join(highlight.lines(code, language)))


class HtmlRenderer(Renderer):
    name = "html"

    def __init__(self, index: Optional[str] = None) -> None:
        self.index_page = index  # a report written as part of a folder links back to the folder's index page

    def report(self, analysis: SampleAnalysis) -> str:
        """The report of one run: the headline, what to change and the timings first, then each compiled variant."""
        heads = views.headlines(analysis)
        rewrites = views.rewrites(analysis.rewrites, analysis.variants)
        tried = [f for f in analysis.fixes if f.tried]
        shown = next((h.compiled for h in heads if h.compiled), None)  # its section opens; the others are folded

        def line_anchor(ref: LineRef) -> str:
            return section.line_id(ref.variant, analysis.files, ref.file, ref.line)
        return environment(self.index_page).get_template("report.html.j2").render(
            a=analysis, sample=analysis.sample, env=analysis.env, chart=charts.bars(analysis.variants),
            sweep=charts.sweep_plot(analysis.sweep), crossovers=views.crossovers(analysis), headlines=heads,
            changes=views.changes(analysis),
            without_gain=views.tried_without_gain(analysis), table=views.table(analysis),
            rewrites=rewrites, numba_hint=views.numba_hint(analysis),
            caution=views.caution(analysis), caution_when=views.CAUTION_WHEN, line_anchor=line_anchor,
            cuda_graphs=views.cuda_graphs(analysis),
            compiled=[section.section(v, analysis.files, open=v.id == shown,
                                      tried=[f for f in tried if f.variant == v.id])
                      for v in analysis.variants if v.compiled],
            findings=[f for f in analysis.findings if f.breaks or f.warnings], tlparse=views.tlparse(analysis.trace),
            families=sorted({v.family for v in analysis.variants}), highlight_css=highlight.stylesheet())

    def comparison(self, comparison: Comparison) -> str:
        """A comparison of runs as one page: per pair of runs, each variant's verdict first (eager ones read as the
        control for the machine and NumPy), what else changed, the lines whose verdict changed, where the time goes
        under each, each variant's timings and code hunks; the runs and their environment last."""
        return environment().get_template("compare.html.j2").render(
            sample=comparison.sample, runs=comparison.runs, env=compared.environment(comparison),
            pairs=compared.pairs(comparison), clear=CLEAR, unit=UNIT[comparison.kind])

    def index(self, entries: Sequence[tuple[str, Union[SampleAnalysis, ProgramAnalysis, None]]]) -> str:
        """The index of a folder of reports: ``entries`` [(stem, Analysis or None)], a row each (a sample's or a
        program's, see folder.IndexRow), sortable by any column (an inline script)."""
        return environment().get_template("index.html.j2").render(rows=folder.rows(entries))

    def program(self, analysis: ProgramAnalysis) -> str:
        """The report of a program's run (``inspector run``): its compiled functions, each as a compiled variant."""
        p = analysis.program
        rows = views.program_rows(analysis)
        costliest = max((r.v for r in rows), key=lambda v: v.run.total_s, default=None)
        return environment(self.index_page).get_template("program.html.j2").render(
            a=analysis, p=p, title=program_title(analysis), headlines=views.program_headlines(analysis),
            hot=hot_views(p), sampled=sampled(p.hotspots),
            whole=frozenset(h.id for h in p.hotspots if h.shape == "population"),
            fixes=views.program_fixes(analysis), caution=views.program_caution(analysis), sample=analysis.sample,
            env=analysis.env,
            rows=rows, tlparse=views.tlparse(analysis.trace), rewrites=(),
            children=[child_process(c) for c in p.children],
            compiled=[section.section(r.v, analysis.files, open=r.v is costliest, limit=PROGRAM_LIMIT) for r in rows],
            highlight_css=highlight.stylesheet())
