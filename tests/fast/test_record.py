"""The record: one-line errors for what is not one, schema-1 records read as schema 2, atomic writes; the typed
record: written back the same, unknown keys kept and counted, never changed by the analysis."""

import json
from dataclasses import FrozenInstanceError, fields

import pytest

from conftest import FIXTURES, ROOT, record_path
from inspector.analysis import analyze
from inspector.api import render
from inspector import raw
from inspector.raw import RawRecord, RawVariant
from inspector.record import SCHEMA, RecordError, load, migrate, save
from inspector.render import renderer


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    (json.dumps({"a": 1}), "not an inspector record"),
    (json.dumps({"schema": "inspector.record/99", "sample": {}, "env": {}, "variants": []}),
     "record schema inspector.record/99 is not inspector.record/2"),
    (json.dumps({"schema": SCHEMA, "sample": {}, "env": {}}), "'variants' is missing or not a list"),
    (json.dumps({"schema": SCHEMA, "sample": {"path": "x.py"}, "env": {}, "variants": []}),
     "sample has no int 'population'"),
    (json.dumps({"schema": "inspector.record/1", "sample": {"path": "x.py", "population": 3}, "env": {},
                 "variants": [{}]}), "variant 1 has no str 'id'"),
    (json.dumps({"schema": SCHEMA, "sample": {"path": "x.py", "population": 3}, "env": {}, "variants": [3]}),
     "variant 1 is not an object"),
])
def test_what_is_not_a_record_is_one_line(tmp_path, content, message):
    (tmp_path / "bad.json").write_text(content)
    with pytest.raises(RecordError, match=message) as info:
        load(tmp_path / "bad.json")
    assert "\n" not in str(info.value) and str(info.value).startswith(str(tmp_path / "bad.json"))


def test_a_schema_1_record_loads_as_schema_2_with_only_raw_facts():
    raw = json.loads((FIXTURES / "schema-1" / "knapsack_breaks.json").read_text())
    assert raw["schema"] == "inspector.record/1" and "lines" in raw["variants"][2]
    typed = load(FIXTURES / "schema-1" / "knapsack_breaks.json")
    record = typed.to_json()
    assert typed.schema == SCHEMA and record == migrate(raw)
    for v in record["variants"]:
        assert not {"kernels", "lines", "graph_breaks", "speedup_vs_numpy", "time_split"} & set(v)
        assert not {"per_population_s", "compile_s"} & set(v.get("timing") or {})
        assert v.get("capture") == next(r for r in raw["variants"] if r["id"] == v["id"]).get("capture")
    point = record["sweep"][0]["variants"][0]
    assert point["measured_population"] and "per_population_s" not in point["timing"]


def test_a_record_round_trips_and_leaves_no_temporary_file(tmp_path):
    record = load(record_path("2.13.0", "trig"))
    save(record, tmp_path / "r.json")
    assert load(tmp_path / "r.json") == record
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("**/*.json")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_record_reads_typed_and_writes_back_the_same(path):
    data = json.loads(path.read_text())
    if not str(data.get("schema", "")).startswith("inspector.record/"):
        pytest.skip("not a record")
    record = migrate(data) if data["schema"] == "inspector.record/1" else data
    typed = RawRecord.from_json(record)
    assert typed.to_json() == record and typed.unknown() == [] and load(path) == typed
    assert all(isinstance(v, RawVariant) for v in typed.variants) and typed.sample.path == record["sample"]["path"]
    assert typed.variants or typed.program.hotspots  # a program that compiled nothing: its hot functions


def test_an_unknown_key_is_kept_and_listed_and_an_absent_one_stays_absent():
    data = {"schema": SCHEMA, "sample": {"path": "x.py", "population": 3, "new": 1}, "env": {},
            "variants": [{"id": "a", "kind": "python", "status": "ok", "capture": {"graphs": [{"later": [2]}]}}]}
    typed = RawRecord.from_json(data)
    assert typed.unknown() == ["sample.new", "variants[0].capture.graphs[0].later"]
    assert typed.to_json() == data and typed.variants[0].timing is None and "timing" not in typed.to_json()
    assert typed.but(trace_dir="t").to_json() == dict(data, trace_dir="t")
    with pytest.raises(TypeError):
        RawRecord.from_json([data])


def test_the_analysis_takes_a_typed_record_not_a_dict():
    with pytest.raises(TypeError, match="analyze takes a RawRecord"):
        analyze(json.loads(record_path("2.13.0", "poly").read_text()))


RECORDS = sorted(p for p in (FIXTURES / "records").glob("*/*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_whole_analysis_and_its_pages_leave_the_record_as_it_was(path):
    record = load(path)
    before = json.dumps(record.to_json(), sort_keys=True)  # every container copied
    a = analyze(record)
    for kind in ("html", "text", "json"):
        renderer(kind).render(a)
    assert json.dumps(record.to_json(), sort_keys=True) == before
    with pytest.raises(FrozenInstanceError):
        record.sample.path = "elsewhere"


def test_a_record_with_keys_this_version_does_not_know_loads_renders_and_counts_them(tmp_path):
    data = json.loads(record_path("2.13.0", "poly").read_text())
    data["sample"]["later"] = 1
    data["variants"][0]["capture"] = dict(data["variants"][0].get("capture") or {}, new_fact={"x": 1})
    (tmp_path / "poly.json").write_text(json.dumps(data))
    report = render(tmp_path / "poly.json")
    assert report.record.to_json() == data
    (count,) = [p for p in report.analysis.parse if p.artifact == "record keys"]
    assert count.read == 2 and [p.what[0].text for p in count.problems] == ["sample.later",
                                                                          "variants[0].capture.new_fact"]
    assert '<th scope="row">record keys</th><td class="num">2</td><td class="num">2</td>' in report.html()
    assert "not understood: 2 of 2 record keys" in report.text()
    assert all(p.artifact != "record keys" for p in analyze(load(record_path("2.13.0", "poly"))).parse)


def test_every_field_of_the_typed_record_is_a_key_docs_record_md_names():
    doc = (ROOT / "docs" / "record.md").read_text()
    types = [t for t in vars(raw).values() if isinstance(t, type) and issubclass(t, raw.Raw) and t is not raw.Raw]
    assert len(types) > 15
    assert [(t.__name__, f.name) for t in types for f in fields(t)
            if f.name not in ("other", "absent") and f"`{f.name}`" not in doc] == []
