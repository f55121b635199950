"""The index of a folder of reports, as typed views: a row per report (``IndexRow``) with the figures its own page
leads with: a sample's headline per family, a program's per compiled function; ``rows`` builds them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from inspector.model import Analysis, ProgramAnalysis, Recompilation, SampleAnalysis
from inspector.render import views


@dataclass(frozen=True)
class IndexRow:
    """One report of a folder's index: its stem and title (``missing``: no record, the run failed); a sample's
    headlines (per family: its fastest variant and time, its best compiled against its fastest eager variant) or a
    program's (per compiled function, with its compiled call against an eager one where it was timed); its graph
    break sites, recompiles (``limit``: where they hit the limit or happened on every call), what went wrong
    (failed variants or functions, an interruption, inspector's internal errors, a program's exit status), whether
    the report cautions about the machine, its torch and date; and the sort key of each column that sorts by more
    than its text (a family column sorts by its worst family)."""

    stem: str
    title: str
    missing: bool
    families: tuple[views.HeadlineView, ...]
    functions: tuple[views.FunctionHeadline, ...]
    eager: tuple[views.FunctionRow, ...]  # a program's functions timed eagerly too
    breaks: int
    recompiles: int
    limit: tuple[str, ...]
    failed: tuple[str, ...]
    interrupted: bool
    internal: int
    exit: Optional[int]  # a program's exit status, where it is not 0
    busy: bool
    torch: Optional[str]
    created: str
    sort_torch: str
    sort_fastest: Optional[float]
    sort_vs: Optional[float]

    @property
    def bad(self) -> bool:
        return bool(self.failed or self.interrupted or self.internal or self.exit)

    @property
    def date(self) -> str:
        return self.created[:10]

    @property
    def time(self) -> str:
        return self.created[11:16]


def rows(entries: Sequence[tuple[str, Union[SampleAnalysis, ProgramAnalysis, None]]]) -> list[IndexRow]:
    """A row per ``(stem, its analysis or None)``, in their order."""
    return [_program(stem, a) if isinstance(a, ProgramAnalysis) else _sample(stem, a) if a else _missing(stem)
            for stem, a in entries]


def _missing(stem: str) -> IndexRow:
    return IndexRow(stem, stem, True, (), (), (), 0, 0, (), (), False, 0, None, False, None, "", "", None, None)


def _sample(stem: str, analysis: SampleAnalysis) -> IndexRow:
    """A sample's row: its headlines; its breaks counted as its report's headline counts them."""
    compiled = [v for v in analysis.variants if v.compiled and not v.preview]
    again = [(v.id, v.code.recompilation) for v in compiled if v.code.recompilation]
    heads = tuple(views.headlines(analysis))
    times = [h.time_s for h in heads]
    ratios = [r for h in heads if (r := h.compiled_vs_eager)]
    return IndexRow(
        **_common(stem, analysis), families=heads, functions=(), eager=(),
        breaks=len({(b.file, b.line) for v in compiled for b in v.code.breaks}),
        recompiles=sum(r.count for _, r in again), limit=_limit(again),
        failed=tuple(v.id for v in analysis.variants if v.failed), exit=None,
        busy=views.caution(analysis) is not None, sort_fastest=max(times) if times else None,
        sort_vs=min(ratios) if ratios else None)


def _program(stem: str, analysis: ProgramAnalysis) -> IndexRow:
    """A program's row: its functions' headlines, those timed eagerly too, its exit status where not 0."""
    p = analysis.program
    return IndexRow(
        **_common(stem, analysis), families=(), functions=tuple(views.program_headlines(analysis)),
        eager=tuple(r for r in views.program_rows(analysis) if r.vs_eager),
        breaks=sum(len(f.code.breaks) for f in p.functions), recompiles=sum(len(f.run.recompiles) for f in p.functions),
        limit=_limit([(f.id, f.code.recompilation) for f in p.functions if f.code.recompilation]),
        failed=tuple(f.id for f in p.functions if f.failed), exit=p.exit or None,
        busy=views.program_caution(analysis) is not None, sort_fastest=None, sort_vs=None)


def _common(stem: str, analysis: Analysis) -> dict[str, Any]:
    """The fields of a row every run's analysis gives alike."""
    return dict(stem=stem, title=analysis.sample.title, missing=False, interrupted=analysis.interrupted,
                internal=len(analysis.internal_errors), torch=analysis.env.torch, created=analysis.record.created,
                sort_torch=".".join(f"{int(n):04d}" for n in re.findall(r"\d+", analysis.env.torch or "")[:3]))


def _limit(again: Sequence[tuple[str, Recompilation]]) -> tuple[str, ...]:
    """Where the recompiles hit the limit or happened on every call."""
    return tuple(f"{vid}: {'recompile limit hit' if r.limit else 'on every call'}"
                 for vid, r in again if r.limit or r.every_call)
