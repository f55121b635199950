"""The typed values' words and their JSON output: enums that read as their strings, a versioned format, every
field documented in docs/record.md."""

import dataclasses
import json
import typing
from enum import Enum

import pytest

from conftest import ROOT, analysis, record_path
from inspector import model
from inspector.analysis import analyze, compare
from inspector.record import load
from inspector.render.words import timing_notes
from inspector.model import FORMAT, BreaksView, Reason, ReasonKind, Status
from inspector.raw import RawRecord
from inspector.render import renderer
from inspector.render.said import WORDS


def _strings(data):
    """Every string in plain JSON data, keys included."""
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in [k, *_strings(v)]]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


def test_enum_members_read_as_their_words_and_unknown_words_are_refused():
    assert Status.OK == "ok" and str(Status.OK) == f"{Status.OK}" == "ok" and {"ok": 1}[Status.OK] == 1
    assert Reason("fix").kind is ReasonKind.FIX and Reason("not-vectorized-tail").not_vectorized
    with pytest.raises(ValueError, match="not-a-kind"):
        Reason("not-a-kind")
    v = analysis("2.13.0", "knapsack_breaks").variant("numpy-compiled-cpu")
    assert type(v.status) is Status and v.ok_compiled
    assert {type(e.status) for e in v.code.lines if e.status} == {model.LineStatus}
    assert {type(h) for e in v.code.lines for h in e.how} == {model.How}
    assert {type(k.backend) for k in v.code.kernels} == {model.Backend}


def test_a_cuda_variants_copies_are_a_typed_transfer_said_in_its_timing_notes():
    record = load(record_path("2.13.0", "poly")).to_json()
    raw = next(v for v in record["variants"] if v["id"] == "torch-compiled-cpu")
    raw["transfer"] = {"to_device_s": 0.002, "to_device_bytes": 8000, "to_host_s": None, "to_host_bytes": None}
    v = analyze(RawRecord.from_json(record)).variant("torch-compiled-cpu")
    assert v.timing.transfer == model.Transfer(0.002, 8000, None, None)
    assert model.to_json(v)["timing"]["transfer"] == raw["transfer"]
    assert [n for n in timing_notes(v, 1) if "copying the population there takes 2 ms, which" in n]


def test_every_json_output_carries_its_format_and_plain_strings():
    a, older = analysis("2.13.0", "poly"), analysis("2.1.2", "poly")
    json_ = renderer("json")
    outputs = [json_.report(a), json_.breaks(BreaksView(a.sample.path, a.env.torch, a.sample.population, a.findings)),
               json_.comparison(compare.compare([older, a]))]
    for text in outputs:
        data = json.loads(text)
        assert next(iter(data)) == "format" and data["format"] == FORMAT
    # what to change, last, as the page says it
    trig = analysis("2.13.0", "trig")
    advice, said = json.loads(json_.report(trig))["advice"], renderer("text").report(trig)
    assert advice and all(c["text"] in said and c["at"] and c["lines"] for c in advice)
    plain = model.to_json(a)
    assert plain["variants"][0]["status"] == "ok"
    assert not [s for s in _strings(plain) if type(s) is not str]


def _output_types():
    """Every dataclass a run's analysis (a sample's, a program's) or a BreaksView holds, by the types of what the JSON
    writes for its fields (a field's words, ``said.WORDS``, in its place)."""
    found, todo = [], [model.SampleAnalysis, model.ProgramAnalysis, model.BreaksView]
    while todo:
        t = todo.pop()
        if dataclasses.is_dataclass(t) and t not in found:
            found.append(t)
            todo += {**typing.get_type_hints(t), **{key: hint for key, (hint, _) in WORDS.get(t, {}).items()}}.values()
        else:
            todo += [a for a in typing.get_args(t) if not (isinstance(a, type) and issubclass(a, Enum))]
    return found


def test_every_field_of_the_json_output_is_documented():
    doc = (ROOT / "docs" / "record.md").read_text()
    analysis_doc = doc[doc.index("## The analysis"):]
    assert f'`"{FORMAT}"`' in analysis_doc
    types = _output_types()
    assert {model.SampleVariant, model.ProgramFunction, model.CompiledCode, model.SweepEntry, model.Kernel,
            model.LineVerdict, model.Transfer, model.Ignored} <= set(types)
    missing = [f"{t.__name__}.{f.name}" for t in types for f in dataclasses.fields(t)
               if f"`{f.name}`" not in analysis_doc]
    missing += [t.__name__ for t in types if f"`{t.__name__}`" not in analysis_doc]
    assert not missing
    for enum in (model.Status, model.Backend, model.LineStatus, model.Vectorized, model.How, model.ReasonKind,
                 model.FixKind, model.WarningKind):
        assert f"`{enum.__name__}`" in analysis_doc
        words = [m.value.removeprefix("not-vectorized-") for m in enum]
        assert all(w in analysis_doc for w in words), enum


def test_a_model_value_is_read_from_its_raw_counterpart_field_for_field():
    """``model.of_raw``: same-named fields copied, nested values and enums read the same way, lists made the
    model's tuples; a field the raw value lacks takes its default, else its type's empty value; ``given`` wins."""
    from inspector.model import Argument, InternalError, Sample, of_raw
    from inspector.model.hotspots import Site
    from inspector.raw import RawArgument, RawError, RawIgnored, RawSample, RawSite
    sample = of_raw(Sample, RawSample(path="ga.py", shape=[4, 3], ignored=[RawIgnored(name="f", reason="r")]),
                    title="GA")
    assert (sample.path, sample.title, sample.shape, sample.description, sample.population) == (
        "ga.py", "GA", [4, 3], "", None)
    assert sample.ignored == [model.Ignored("f", "r")] and sample.tolerance is None
    assert of_raw(Argument, RawArgument(name="x", type="Tensor", shape=[2, 3])) == Argument("x", "Tensor", (2, 3))
    assert of_raw(InternalError, RawError(where="probe")) == InternalError("probe", "", None)
    site = of_raw(Site, RawSite(file="ga.py", line=7, function="main"))  # a Place: file and line by name
    assert (site.file, site.line, site.function, site.samples) == ("ga.py", 7, "main", None)
    assert of_raw(model.CrossCheck, object(), against="numpy") == model.CrossCheck("numpy", None, None)  # defaults
    with pytest.raises(TypeError, match="no empty value"):
        of_raw(model.SampleVariant, object())  # a field with no empty value (a Status) must be given
