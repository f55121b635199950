"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first; a report's
and a program's ``advice`` last, in the words their pages say it (the analysis' ``changes`` and ``could_try``), and a
program's ``hot`` functions as its first screen says them (``HotView``s). Each output's shape is published as a JSON
Schema (``inspector.render.schema``), made from the types of each method's value and of its ``EXTRAS``; the previous
formats are still written on request (``number``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from inspector.model import FORMAT, BreaksView, Comparison, ProgramAnalysis, SampleAnalysis, to_json
from inspector.render import views
from inspector.render.base import Renderer
from inspector.render.formats import NUMBER, OLDER, WRITTEN
from inspector.render.hotspots import HotView
from inspector.render.hotspots import views as hot_views
from inspector.render.said import json_words
from inspector.render.views import ChangeView, ProgramFix

@dataclass(frozen=True)
class ReportExtras:
    """What a sample's report writes after its analysis's fields: what to change, as its page says it, the most time
    at stake first."""

    advice: tuple[ChangeView, ...]


@dataclass(frozen=True)
class ProgramExtras:
    """What a program's page writes after its analysis's fields: the fixes its functions could try (not measured),
    and its hot functions as its first screen says them."""

    advice: tuple[ProgramFix, ...]
    hot: tuple[HotView, ...]


# what an output writes after its value's fields, by the renderer's method
EXTRAS: dict[str, type] = {"report": ReportExtras, "program": ProgramExtras}
class JsonRenderer(Renderer):
    name = "json"

    def __init__(self, number: Optional[int] = None) -> None:
        """``number``: the format to write (default: the current one, ``inspector.model.FORMAT``)."""
        number = number or NUMBER
        if number not in WRITTEN:
            raise ValueError(f"JSON format {number}: this version writes {' or '.join(map(str, WRITTEN))}")
        self.number = number

    def report(self, analysis: SampleAnalysis) -> str:
        return self._dumps(analysis, ReportExtras(tuple(views.changes(analysis))))

    def program(self, analysis: ProgramAnalysis) -> str:
        hot = hot_views(analysis.program)
        return self._dumps(analysis, ProgramExtras(tuple(views.program_fixes(analysis)), tuple(hot)))

    def breaks(self, view: BreaksView) -> str:
        return self._dumps(view)

    def comparison(self, comparison: Comparison) -> str:
        return self._dumps(comparison)

    def _dumps(self, value: object, extras: Optional[object] = None) -> str:
        data = {"format": FORMAT, **to_json(value, json_words), **(to_json(extras, json_words) if extras else {})}
        data = OLDER[self.number](data) if self.number != NUMBER else data
        return json.dumps(data, indent=1, ensure_ascii=False, default=str)
