"""The JSON output's formats: the current one's number, and the older ones this version still writes, each made from
the current format's output (``--json-format``; docs/record.md lists what changed from each to the next)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.model import FORMAT

NUMBER = int(FORMAT.rsplit("/", 1)[1])  # the current format's number
NEW_IN_4 = ("fixes", "changes", "headlines", "could_try")  # a run's answers, stored since format 4


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


# the older formats still written, each from the current format's output
OLDER: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {3: _format_3, 2: _format_2}
WRITTEN = (NUMBER, *OLDER)  # the formats this version writes, the current one first
