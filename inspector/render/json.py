"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first."""

from __future__ import annotations

import json

from inspector.model import FORMAT, Analysis, BreaksView, Comparison, to_json
from inspector.render.base import Renderer


class JsonRenderer(Renderer):
    name = "json"

    def report(self, analysis: Analysis) -> str:
        return _dumps(analysis)

    def program(self, analysis: Analysis) -> str:
        return _dumps(analysis)

    def breaks(self, view: BreaksView) -> str:
        return _dumps(view)

    def comparison(self, comparison: Comparison) -> str:
        return _dumps(comparison)


def _dumps(value: object) -> str:
    return json.dumps({"format": FORMAT, **to_json(value)}, indent=1, ensure_ascii=False, default=str)
