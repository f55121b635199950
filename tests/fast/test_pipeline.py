"""docs/pipeline.md, the one-page map of the pipeline, against the code: each stage it names exists, and takes and
returns the types the map says (``typing.get_type_hints`` of its signature)."""

import importlib
import re
import types
import typing

import pytest

from conftest import ROOT

MAP = ROOT / "docs" / "pipeline.md"


def _stages():
    """(stage, dotted name, [input types], output type) of each row of the map's table whose code is a callable."""
    rows = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) != 4 or cells[0] in ("Stage", "---") or set(cells[0]) <= {"-", " "}:
            continue
        stage, code, inputs, output = cells
        name = re.fullmatch(r"`([\w.]+)`", code)
        if name:
            rows.append((stage, name.group(1), [t.replace("\\|", "|") for t in re.findall(r"`([^`]+)`", inputs)],
                         re.fullmatch(r"`([^`]+)`", output).group(1).replace("\\|", "|")))
    return rows


def _resolve(dotted):
    """The object a dotted name names: a module's attribute, or a class's."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            found = getattr(found, part)
        return found
    raise ImportError(dotted)


def _spell(hint):
    """A type as the map writes it: ``Optional[str]``, ``list[Fix]``, ``str | Path``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None):
        return "None"
    if hint is typing.Any:
        return "Any"
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        said = " | ".join(_spell(a) for a in rest)
        return f"Optional[{said}]" if len(rest) < len(args) else said
    if origin is not None:
        return f"{origin.__name__}[{', '.join('...' if a is Ellipsis else _spell(a) for a in args)}]"
    return hint.__name__


def test_the_map_names_every_stage_from_the_wire_to_the_renderers():
    names = [name for _, name, _, _ in _stages()]
    assert names[0] == "inspector.collect.Session.run" and "inspector.analysis.analyze" in names
    assert {"inspector.analysis.fixes.candidates", "inspector.api.measure", "inspector.render.Renderer.report"} <= set(
        names)
    text = MAP.read_text(encoding="utf-8")
    assert "inspector.probe.messages" in text  # the wire: the probe's stage, before collect


@pytest.mark.parametrize("stage, name, inputs, output", _stages(), ids=[row[0] for row in _stages()])
def test_each_stage_takes_and_returns_the_types_the_map_names(stage, name, inputs, output):
    hints = typing.get_type_hints(_resolve(name))
    returned = hints.pop("return")
    assert [_spell(h) for h in hints.values()] == inputs, name
    assert _spell(returned) == output, name
