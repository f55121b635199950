"""The JSON output as a contract: its schema is the one the model's types make, says everything its format's first
schema said, is listed in docs/record.md, and every JSON the analysis of the checked-in records writes validates."""

import json
import re

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from conftest import FIXTURES, RECORDS, ROOT, VERSIONS, analysis, record_path
from inspector import api
from inspector.analysis import analyze, compare
from inspector.cli import app
from inspector.model import FORMAT, BreaksView, SampleAnalysis
from inspector.record import load
from inspector.render import renderer, schema
from inspector.render.json import NUMBER, OLDER

REGENERATE = "run `python scripts/make-schema.py` and review `git diff inspector/schemas`"
FIRST = FIXTURES / "schemas"  # each format's first schema, never rewritten (scripts/make-schema.py)


def test_the_shipped_schema_is_the_one_the_types_make_and_what_inspector_schema_prints():
    assert schema.path().is_file(), f"no schema for {FORMAT}: {REGENERATE}"
    shipped = schema.path().read_text(encoding="utf-8")
    assert shipped == schema.text(), f"the model's types changed and the schema did not: {REGENERATE}"
    Draft202012Validator.check_schema(json.loads(shipped))
    assert api.schema() == shipped
    assert CliRunner().invoke(app, ["schema"]).stdout == shipped


def _lost(old, new, at="schema"):
    """What ``old`` (a schema) says that ``new`` no longer does: a key or a word gone, a type changed. Keys, words
    and types that only ``new`` has are not lost (a field may be added within a format); descriptions are words."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [lost for key, value in old.items() if key != "description"
                for lost in ([f"{at}/{key} is gone"] if key not in new else
                             [f"{at}/{key}: {w!r} is gone" for w in value if w not in new[key]]
                             if key in ("required", "enum") else _lost(value, new[key], f"{at}/{key}"))]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [lost for i, (a, b) in enumerate(zip(old, new)) for lost in _lost(a, b, f"{at}/{i}")]
    return [] if old == new else [f"{at}: {old!r} is now {new!r}"]


def test_a_field_moved_removed_or_retyped_needs_a_new_format():
    first = FIRST / schema.path().name
    assert first.is_file(), f"no first schema for {FORMAT}: {REGENERATE} (it writes one)"
    lost = _lost(json.loads(first.read_text(encoding="utf-8")), schema.schema())
    assert not lost, (f"the JSON of {FORMAT} no longer says what it said: give it a new format "
                      "(inspector.model.FORMAT), regenerate its schema and say what changed in docs/record.md's list "
                      "of formats\n" + "\n".join(lost[:20]))


def test_the_loss_of_a_key_a_word_or_a_type_is_found_and_an_addition_is_not():
    old = {"properties": {"a": {"type": "string"}, "b": {"enum": ["x", "y"]}}, "required": ["a", "b"],
           "description": "old words"}
    assert not _lost(old, {**old, "properties": {**old["properties"], "c": {}}, "required": ["a", "b", "c"],
                           "description": "new words"})
    assert _lost(old, {**old, "properties": {"b": old["properties"]["b"]}})
    assert _lost(old, {**old, "properties": {**old["properties"], "b": {"enum": ["x"]}}})
    assert _lost(old, {**old, "properties": {**old["properties"], "a": {"type": ["string", "null"]}}})


def test_docs_list_what_changed_for_every_format_up_to_the_current_one():
    doc = (ROOT / "docs" / "record.md").read_text()
    section = doc[doc.index("## The analysis as a contract"):]
    section = section[:section.index("\n## ")]
    listed = [int(n) for n in re.findall(r"^- \*\*inspector\.analysis/(\d+)\*\*", section, re.M)]
    assert listed == list(range(1, NUMBER + 1)), f"docs/record.md lists formats {listed}, the current is {FORMAT}"
    assert "inspector schema" in section and all(f"--json-format {n}" in section for n in OLDER)


def _records():
    """Every checked-in record's Analysis: (name, Analysis)."""
    yield from ((f"{v}/{p.stem}", analysis(v, p.stem)) for v in VERSIONS
                for p in sorted((RECORDS / f"torch-{v}").glob("*.json")))
    yield from ((f"{p.parent.name}/{p.stem}", analyze(load(p)))
                for p in [*sorted((RECORDS / "interleaved").glob("*.json")), *(FIXTURES / "schema-1").glob("*.json")])


def _outputs():
    """(name, JSON text) of every output the JSON renderer writes for the checked-in records."""
    json_, analyses = renderer("json"), dict(_records())
    for name, a in analyses.items():
        yield name, json_.render(a)
        if isinstance(a, SampleAnalysis):
            yield f"{name} breaks", json_.breaks(BreaksView(a.sample.path, a.env.torch, a.sample.population or 0,
                                                            a.findings, a.rewrites))
    pairs = [("2.1.2/poly", "2.13.0/poly"), ("interleaved/poly-torch-2.1.2", "interleaved/poly-torch-2.13.0")]
    for a, b in pairs:
        yield f"{a} against {b}", json_.comparison(compare.compare([analyses[a], analyses[b]]))


def test_every_json_the_analysis_of_the_checked_in_records_writes_validates():
    validator = Draft202012Validator(json.loads(schema.path().read_text(encoding="utf-8")))
    outputs = list(_outputs())
    assert len(outputs) > 2 * 2 * 20 and {json.loads(t)["format"] for _, t in outputs} == {FORMAT}
    invalid = [f"{name}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
               for name, text in outputs for e in validator.iter_errors(json.loads(text))]
    assert not invalid, "\n".join(invalid[:20])
    programs = [json.loads(t) for _, t in outputs if '"hot": [' in t]
    assert programs and all(p["program"] for p in programs)  # the program's output, not the report's


@pytest.mark.parametrize("stem", ["trig", "plain_ga"])
def test_format_3_is_one_analysis_for_both_kinds_of_run_with_the_keys_its_first_schema_requires(stem):
    a = analysis("2.13.0", stem)
    now, older = (json.loads(renderer("json", number=n).render(a)) for n in (NUMBER, 3))
    assert older["format"] == "inspector.analysis/3" and "record" not in older and older["schema"] == now["record"][
        "schema"]
    assert (older["program"] is None) == isinstance(a, SampleAnalysis) and "variants" in older
    first = json.loads((FIRST / "analysis-3.json").read_text(encoding="utf-8"))["$defs"]
    required = first["report" if isinstance(a, SampleAnalysis) else "program"]["required"]
    assert set(required) <= set(older) and not set(now) - set(older) - {"record", "fixes", "changes", "headlines",
                                                                         "could_try"}
    poly = [analysis(v, "poly") for v in VERSIONS]
    compared = json.loads(renderer("json", number=3).comparison(compare.compare(poly)))
    assert compared["program"] is False and all(p["program"] is False for p in compared["pairs"])


@pytest.mark.parametrize("stem", ["trig", "plain_ga"])
def test_format_2_is_format_3_with_the_run_end_at_the_top(stem):
    a = analysis("2.13.0", stem)
    now, older = (json.loads(renderer("json", number=n).render(a)) for n in (3, 2))
    assert older["format"] == "inspector.analysis/2" and "end" not in older
    assert {k: older[k] for k in now["end"]} == now["end"]
    assert {k: v for k, v in older.items() if k not in now["end"]} == {k: v for k, v in now.items()
                                                                       if k not in ("end", "format")} | {
        "format": "inspector.analysis/2"}
    with pytest.raises(ValueError, match="JSON format 1"):
        renderer("json", number=1)


def test_render_writes_format_2_on_request_and_refuses_a_format_it_cannot_write(tmp_path):
    args = ["render", str(record_path("2.13.0", "trig")), "-o", str(tmp_path), "-f", "json", "--json-format"]
    said = CliRunner().invoke(app, [*args, "2"])
    assert said.exit_code == 0 and json.loads(said.stdout)["format"] == "inspector.analysis/2"
    assert not list(tmp_path.iterdir())  # only what was asked for: the JSON, on stdout, and no page
    refused = CliRunner().invoke(app, [*args, "1"])
    assert "--json-format 1: expected 4 or 3 or 2" in str(refused.exception)  # main() says it, exit 2
