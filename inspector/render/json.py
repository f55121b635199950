"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first; a report's
and a program's ``advice`` last, as their pages say it, and a program's ``hot`` functions as its first screen says
them (``HotView``s)."""

from __future__ import annotations

import json

from inspector.model import FORMAT, Analysis, BreaksView, Comparison, to_json
from inspector.render import views
from inspector.render.base import Renderer
from inspector.render.said import json_words as said
from inspector.render.hotspots import views as hot_views


class JsonRenderer(Renderer):
    name = "json"

    def report(self, analysis: Analysis) -> str:
        return _dumps(analysis, advice=[to_json(c, said) for c in views.changes(analysis)])

    def program(self, analysis: Analysis) -> str:
        hot = hot_views(analysis.program.hotspots, analysis.program.wall_s) if analysis.program else []
        return _dumps(analysis, advice=[to_json(f, said) for f in views.program_fixes(analysis)],
                      hot=[to_json(h, said) for h in hot])

    def breaks(self, view: BreaksView) -> str:
        return _dumps(view)

    def comparison(self, comparison: Comparison) -> str:
        return _dumps(comparison)


def _dumps(value: object, **after: object) -> str:
    return json.dumps({"format": FORMAT, **to_json(value, said), **after}, indent=1, ensure_ascii=False, default=str)
