"""inspector's rewrites as the report shows them, from checked-in records (issue 31): the per-individual
fitness_python rewritten in NumPy and torch, checked and timed eager and compiled beside it; a NumPy variant's breaks
rewritten as a diff against its lines; what was declined, with why; the user's own figures counting no rewrite; and
records made before rewrites existed still rendering without them."""

from dataclasses import replace
import json

import pytest

from conftest import analysis, record_path
from inspector.model import BreaksView, to_json
from inspector.record import load
from inspector.render import renderer, views


def test_fitness_python_is_rewritten_checked_and_timed_beside_it():
    a = analysis("2.13.0", "poly")
    written = {r.id: r for r in a.rewrites}
    assert set(written) == {"python-rewritten-numpy", "python-rewritten-torch"}
    for r in written.values():
        drawn = r.check.drawn  # a sample spread over the rows timed, and witnesses; else every row timed
        assert r.advice and r.check.matched and r.check.evaluations == (
            drawn.sample + drawn.witnesses if drawn else a.variant("python").timing.measured_population)
        assert [x.how for x in r.runs][:2] == ["eager", "compiled"] and all(x.ok and x.speedup for x in r.runs)
        assert "def fitness_" in r.source and r.variant == "python" and r.lines
    shown = {v.id: v for v in views.rewrites(a.rewrites, a.variants)}
    numpy = shown["python-rewritten-numpy"]
    assert numpy.language == "python" and numpy.code == written["python-rewritten-numpy"].source
    assert numpy.check.startswith(f"matches fitness_python on {written['python-rewritten-numpy'].check.evaluations:,} ")
    assert numpy.check.endswith("individuals; every branch taken by some individual") or numpy.check.endswith(
        "others); every branch taken by some individual")
    assert numpy.runs[0].startswith("eager: ") and " than python (" in numpy.runs[0]
    assert numpy.runs[1].startswith("compiled (torch.compile, CPU): ")
    # numba was installed where the probe ran: the function as it stands, and the NumPy rewrite, under @njit
    assert a.env.numba and [x.how for x in written["python-rewritten-numpy"].runs][2:] == ["numba", "as-written"]
    assert numpy.runs[3].startswith("your function as it stands under numba's @njit, over the rows: ")
    assert views.numba_hint(a) is None and views.numba_hint(replace(a, env=replace(a.env, numba=None)))


def test_the_users_own_figures_count_no_rewrite():
    a = analysis("2.13.0", "poly")
    ids = {v.id for v in a.variants}
    assert not any(x.id in ids for r in a.rewrites for x in r.runs)
    assert {h.fastest for h in views.headlines(a)} <= ids and {r.v.id for r in views.table(a).rows} <= ids


@pytest.mark.parametrize("stem", ["knapsack_breaks", "penalty_loops", "first_draft"])
def test_each_break_s_rewrite_is_a_checked_diff_or_declined_with_its_reason(stem):
    a = analysis("2.13.0", stem)
    breaks = [r for r in a.rewrites if r.kind == "breaks"]
    assert breaks
    for r in breaks:
        assert (r.source and r.check and r.runs) or (not r.source and r.declined and not r.runs), r.id
    for v in views.rewrites(breaks):
        assert (v.language == "diff" and v.code.startswith("--- a/samples/")) or not v.code
        assert v.advice or v.failed or all(d.startswith("not rewritten: the ") for d in v.declined)


def test_the_json_output_and_the_breaks_view_carry_the_rewrites():
    a = analysis("2.13.0", "knapsack_breaks")
    said = json.loads(renderer("json").report(a))
    assert [r["id"] for r in said["rewrites"]] == [r.id for r in a.rewrites]
    text = renderer("text").breaks(BreaksView(a.sample.path, a.env.torch, a.sample.population, a.findings,
                                              a.rewrites))
    assert "rewrite: fitness_numpy with its graph breaks rewritten" in text


@pytest.mark.parametrize("version", ["2.1.2", "2.13.0"])
def test_a_record_without_rewrites_renders_as_before(version):
    a = analysis(version, "ten_genes")
    assert a.rewrites == () and "rewrites" not in load(record_path(version, "ten_genes")).to_json()
    assert 'class="rewrite"' not in renderer("html").report(a) and to_json(a)["rewrites"] == []


def test_a_decline_alike_in_both_dialects_is_said_once():
    a = analysis("2.13.0", "knapsack_breaks")
    (torch_,) = [r for r in a.rewrites if not r.source]
    numpy_ = replace(torch_, id="numpy-rewritten", dialect="numpy")  # declined alike, as a per-individual one is
    shown = [v for v in views.rewrites([torch_, numpy_]) if v.declined]
    assert [v.id for v in shown] == [torch_.id]
    other = replace(numpy_, variant="numpy")  # another variant's decline is its own
    assert len([v for v in views.rewrites([torch_, other]) if v.declined]) == 2


def test_a_familys_one_line_headline_names_no_empty_family_no_compiled_variant_and_a_faster_rewrite():
    """The one-line headline a sample of several families gets (issue 40, item 6): the unsuffixed family's line
    starts with its fastest variant, says when no compiled variant ran, and names inspector's faster rewrite."""
    a = analysis("2.13.0", "first_draft")
    (h,) = a.headlines
    r = next(r for r in a.rewrites if r.id == h.beaten[0])
    x = next(x for x in r.runs if x.id == h.beaten[1])
    (shown,) = views.headlines(replace(a, headlines=(replace(h, compiled=None, compiled_s=None),)))
    short = shown.short
    assert short.startswith(f"{h.fastest}, ") and "; no compiled variant ran; " in short
    assert f"inspector's rewrite {x.id}: " in short and f" {x.fastest}" in short
