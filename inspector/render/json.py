"""The JSON renderer: the typed values as plain JSON, for other tools, with the output's ``format`` first."""

import json

from inspector.model import FORMAT, to_json
from inspector.render.base import Renderer


class JsonRenderer(Renderer):
    name = "json"

    def report(self, analysis):
        return _dumps(analysis)

    def program(self, analysis):
        return _dumps(analysis)

    def breaks(self, view):
        return _dumps(view)

    def comparison(self, comparison):
        return _dumps(comparison)


def _dumps(value):
    return json.dumps({"format": FORMAT, **to_json(value)}, indent=1, ensure_ascii=False, default=str)
