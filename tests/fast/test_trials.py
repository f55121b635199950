"""The fixes inspector tries (analysis/trials.py), from checked-in records that hold them: which apply, what each
measured, and that a fix is advice only with a measured gain."""

import statistics

import pytest

from conftest import analysis, line_of, record_path
from inspector.analysis import analyze, trials
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render import views
from inspector.render.base import renderer

FIXES = "ten_genes-fixes"  # ten_genes at its default size: the layout and the tiling heuristic tried


def test_each_fix_tried_is_read_with_its_side_by_side_speedup():
    record = load(record_path("2.13.0", FIXES)).to_json()
    rounds = record["rounds"]["variants"]
    tried = {t["fix"]: t for t in record["trials"]}
    assert set(tried) == {"column-major", "tiling-off"}
    a = analysis("2.13.0", FIXES)
    for raw in record["trials"]:
        t = next(t for v in a.variants for t in v.trials if t.id == raw["id"])
        assert t.variant == raw["variant"] and t.status == "ok" and t.matches is True
        before = {r["round"]: r["median_s"] for r in rounds[raw["variant"]]}
        after = {r["round"]: r["median_s"] for r in rounds[raw["id"]]}
        ratios = [before[r] / after[r] for r in sorted(before.keys() & after.keys())]
        assert t.speedup == pytest.approx(statistics.median(ratios)) and t.rounds == len(ratios) == 3
        assert t.spread == [min(ratios), max(ratios)]
        assert t.gain == (t.speedup >= trials.GAIN and min(ratios) > 1)
        assert t.text.startswith(f"tried: {trials.LABELS[t.fix]} → ")


def test_column_major_says_which_lines_are_now_vectorized():
    a = analysis("2.13.0", FIXES)
    t = next(t for v in a.variants for t in v.trials if t.fix == "column-major")
    v = a.variant(t.variant)
    g1 = line_of(a, "g1 = -105")
    before = next(e for e in v.code.lines if e.line == g1)
    assert before.vectorized == "none"  # the constraints' nest: scalar, strided loads
    assert (a.sample.path, g1) in t.vectorized_now
    assert f"lines {trials.spans(t.vectorized_now)} now vectorized" in t.text
    # said where the advice is, and above the variant's source, whose lines it was about
    assert f"{t.text} (the fix applied by inspector" in renderer("html").report(a)


def test_a_fix_without_gain_is_said_and_never_offered_as_advice():
    a = analysis("2.13.0", FIXES)
    advice, idle = views.changes(a), views.tried_without_gain(a)
    for t in (t for v in a.variants for t in v.trials):
        assert any(c.tried == t.text for c in (advice if t.gain else idle)), t.text
        assert not any(c.tried == t.text for c in (idle if t.gain else advice)), t.text
    text = renderer("text").report(a)
    html = renderer("html").report(a)
    for c in idle:
        assert f"tried, no gain (not advice): {c.text}" in text and "Tried, no gain (not advice)" in html


@pytest.mark.parametrize("version", ["2.1.2", "2.13.0"])
@pytest.mark.parametrize("stem", ["ten_genes", FIXES, "poly", "trig", "knapsack_breaks"])
def test_the_tiling_heuristic_is_advice_only_with_its_measured_effect(version, stem):
    a = analyze(load(record_path(version, stem)))
    for c in views.changes(a) + views.tried_without_gain(a):
        if "tiling" in c.text:
            assert c.tried and c.tried.startswith("tried: the tiling heuristic off → ") and c.gain is not None


def test_under_torch_2_1_the_checker_decided_so_the_tiling_heuristic_is_not_tried():
    record = load(record_path("2.1.2", "ten_genes")).to_json()
    nests = [n for v in analyze(RawRecord.from_json(record)).variants for k in v.code.kernels for n in k.loop_nests if n.decisions]
    assert nests and all(t.branch == "checker" for n in nests for t in n.decisions.tiling)
    assert [s["fix"] for s in trials.choose(RawRecord.from_json(record), trials.KINDS)] == ["column-major"]
    a = analysis("2.1.2", FIXES)
    for t in (t for v in a.variants for t in v.trials):
        assert t.status == "ok" and t.matches is True or t.text.endswith(f"failed: {t.error}")


def test_choose_tries_each_fix_where_it_applies():
    ten = trials.choose(load(record_path("2.13.0", "ten_genes")), trials.KINDS)
    assert [s["fix"] for s in ten] == ["tiling-off", "column-major"]  # config first, layout last
    assert len({s["variant"] for s in ten}) == 1 and ten[1]["layout"] == "column-major"
    knapsack = trials.choose(load(record_path("2.13.0", "knapsack_breaks")), ("flag",), timed=False)
    flags = {(s["variant"], s["config"][0]) for s in knapsack}
    assert ("torch-compiled-cpu", "dynamo.capture_scalar_outputs=True") in flags
    assert all(s["time"] for s in knapsack)  # no rounds follow: each is timed on its own
    static = trials.choose(load(record_path("2.13.0", "knapsack_breaks")), ("static",))  # 9,000 recompiled on size
    assert {(s["variant"], s["sizes"][0]) for s in static} == {("numpy-compiled-cpu", 9000),
                                                                 ("torch-compiled-cpu", 9000)}
    assert all(s["compile_options"] == {"dynamic": False} for s in static)
    assert trials.choose(load(record_path("2.13.0", "sum")), trials.KINDS) == []


def test_a_program_says_what_could_be_tried_and_how_not_measured():
    record = load(record_path("2.13.0", "ga")).to_json()
    record["program"]["try_fixes"] = False
    assert views.program_fixes(analyze(RawRecord.from_json(record))) == []  # not asked for (--no-try-fixes)
    record["program"]["try_fixes"] = True
    said = dict(views.program_fixes(analyze(RawRecord.from_json(record))))
    assert said and all(vid == "fitness" for vid, _ in views.program_fixes(analyze(RawRecord.from_json(record))))
    text = renderer("text").program(analyze(RawRecord.from_json(record)))
    assert "Could be tried (not measured" in text and "capture_scalar_outputs = True" in text
    assert "dynamic=False" in text
