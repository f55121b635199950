"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first; a report's
and a program's ``advice`` last, in the words their pages say it (the analysis' ``changes`` and ``could_try`` in
words), and a program's ``hot`` functions as its first screen says them (``HotView``s)."""

from __future__ import annotations

import json

from inspector.model import FORMAT, BreaksView, Comparison, ProgramAnalysis, SampleAnalysis, to_json
from inspector.render import views
from inspector.render.base import Renderer
from inspector.render.hotspots import views as hot_views


class JsonRenderer(Renderer):
    name = "json"

    def report(self, analysis: SampleAnalysis) -> str:
        return _dumps(analysis, advice=[to_json(c) for c in views.changes(analysis)])

    def program(self, analysis: ProgramAnalysis) -> str:
        hot = hot_views(analysis.program.hotspots, analysis.program.wall_s)
        return _dumps(analysis, advice=[to_json(f) for f in views.program_fixes(analysis)],
                      hot=[to_json(h) for h in hot])

    def breaks(self, view: BreaksView) -> str:
        return _dumps(view)

    def comparison(self, comparison: Comparison) -> str:
        return _dumps(comparison)


def _dumps(value: object, **after: object) -> str:
    return json.dumps({"format": FORMAT, **to_json(value), **after}, indent=1, ensure_ascii=False, default=str)
