"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first; a report's
and a program's ``advice`` last, in the words their pages say it (the analysis' ``changes`` and ``could_try``), and a
program's ``hot`` functions as its first screen says them (``HotView``s). Each output's shape is published as a JSON
Schema (``inspector.render.schema``), made from the types of each method's value and of its ``EXTRAS``; the previous
formats are still written on request (``number``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from inspector.model import FORMAT, BreaksView, Comparison, ProgramAnalysis, SampleAnalysis, to_json
from inspector.render import views
from inspector.render.base import Renderer
from inspector.render.hotspots import HotView
from inspector.render.hotspots import views as hot_views
from inspector.render.said import json_words
from inspector.render.views import ChangeView, ProgramFix

NUMBER = int(FORMAT.rsplit("/", 1)[1])  # the current format's number
NEW_IN_4 = ("fixes", "changes", "headlines", "could_try")  # a run's answers, stored since format 4


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


def _format_3(data: dict[str, Any]) -> dict[str, Any]:
    """Format 4's output as format 3 wrote it: one analysis for both kinds of run (a sample's ``program`` null, a
    program's ``variants``, ``sweep``, ``findings`` and ``rewrites`` empty and its ``rounds`` null) with ``schema``,
    ``inspector`` and ``created`` at the top, without the answers format 4 stores (``NEW_IN_4``, and each compiled
    code's ``functions``), a fix reason's facts ``Named``; a comparison's and its pairs' ``kind`` as ``program``,
    true or false."""
    def program(d: dict[str, Any]) -> dict[str, Any]:
        return {("program" if k == "kind" else k): (v == "program" if k == "kind" else v) for k, v in d.items()}
    if "pairs" in data:
        return {**program(data), "pairs": [program(p) for p in data["pairs"]], "format": "inspector.analysis/3"}
    if "record" not in data:  # the breaks view
        return {**data, "format": "inspector.analysis/3"}
    kept = {k: _fix_named(v) for k, v in data.items() if k not in ("format", "record", *NEW_IN_4)}
    for unit in [*kept.get("variants", []), *(kept.get("program") or {}).get("functions", [])]:
        unit["code"] = {k: v for k, v in unit["code"].items() if k != "functions"}
    return {"format": "inspector.analysis/3", **data["record"], **kept, **{k: kept.get(k, empty) for k, empty in (
        ("variants", []), ("sweep", []), ("findings", []), ("rounds", None), ("program", None), ("rewrites", []))}}


def _fix_named(data: Any) -> Any:
    """Format 4's fix reasons (facts ``UsualFix``) as format 3 wrote them: facts ``Named``, their words the one name."""
    if isinstance(data, list):
        return [_fix_named(d) for d in data]
    if not isinstance(data, dict):
        return data
    if data.get("kind") == "fix" and isinstance(data.get("facts"), dict) and "rewrite" in data["facts"]:
        return {**data, "facts": {"names": [data["text"].removeprefix("fix: ")]}}
    return {k: _fix_named(v) for k, v in data.items()}


def _format_2(data: dict[str, Any]) -> dict[str, Any]:
    """Format 4's output as format 2 wrote it: format 3's with ``interrupted`` and ``probe_restarts`` at the top, not
    under ``end``."""
    items = [item for k, v in _format_3(data).items() for item in (v.items() if k == "end" else [(k, v)])]
    return {**dict(items), "format": "inspector.analysis/2"}


# what an output writes after its value's fields, by the renderer's method
EXTRAS: dict[str, type] = {"report": ReportExtras, "program": ProgramExtras}
# the older formats still written, each from the current format's output
OLDER: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {3: _format_3, 2: _format_2}
WRITTEN = (NUMBER, *OLDER)  # the formats this version writes, the current one first


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
        hot = hot_views(analysis.program.hotspots, analysis.program.wall_s)
        return self._dumps(analysis, ProgramExtras(tuple(views.program_fixes(analysis)), tuple(hot)))

    def breaks(self, view: BreaksView) -> str:
        return self._dumps(view)

    def comparison(self, comparison: Comparison) -> str:
        return self._dumps(comparison)

    def _dumps(self, value: object, extras: Optional[object] = None) -> str:
        data = {"format": FORMAT, **to_json(value, json_words), **(to_json(extras, json_words) if extras else {})}
        data = OLDER[self.number](data) if self.number != NUMBER else data
        return json.dumps(data, indent=1, ensure_ascii=False, default=str)
