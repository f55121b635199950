"""`compare --program`: a program's hot functions and their experiment's candidates under two runs, side by side."""

import json
import sys

import pytest
from markupsafe import escape

from conftest import record_path, run_cli, valid_json
from inspector import api
from inspector.analysis import analyze, compare
from inspector.model import RegressionKind
from inspector.record import load
from inspector.render import comparison as words, renderer
from inspector.render.words import ratio, seconds

SLOWER = "numpy-compiled-cpu"  # twice as slow a generation in the second run
DIFFERS = "torch"  # its output differs from the program's in the second run


def _second_run(tmp_path, stem="plain_ga"):
    """A checked-in program record with hot spots, and a copy of it whose hot function took half the run, with
    SLOWER's rounds twice as long and DIFFERS's output no longer the program's."""
    raw = json.loads(record_path("2.13.0", stem).read_text())
    hot = next(h for h in raw["program"]["hotspots"] if h.get("experiment"))
    hot.update(share=0.5, total_s=hot["total_s"] * 0.5 / hot["share"])
    for run in hot["experiment"]["runs"]:
        if run["id"] == SLOWER:
            run["first_call_s"] *= 2
            for r in run["rounds"]:
                r.update({k: r[k] * 2 for k in ("median_s", "min_s", "max_s")})
        if run["id"] == DIFFERS:
            run.update(matches=False, mismatch="individual 3: expected 1.5, got 2.5")
    (tmp_path / "second.json").write_text(json.dumps(raw))
    return record_path("2.13.0", stem), tmp_path / "second.json"


def test_the_hot_functions_candidates_are_side_by_side_and_agree_on_each_row(tmp_path):
    base, second = _second_run(tmp_path)
    result = compare.compare([analyze(load(base)), analyze(load(second))])
    (h,) = result.pairs[0].hotspots  # fitness: the only function the experiment ran on, or that takes an individual
    assert (h.function, h.shape, h.share[1]) == ("fitness", "individual", 0.5)
    assert h.share[0] == next(x.share for x in analyze(load(base)).program.hotspots if x.function == "fitness")
    assert h.total_s[1] == pytest.approx(h.total_s[0] * 0.5 / h.share[0])
    by_id = {c.id: c for c in h.candidates}
    assert h.candidates[0].id == "as-written" and len(by_id) == 7
    written = by_id["as-written"]
    for c in h.candidates:  # one row's figures agree with each other
        assert c.time.speedup == pytest.approx(c.time.a / c.time.b)
        for n in (0, 1):
            assert c.faster[n] == pytest.approx((written.time.a, written.time.b)[n] / (c.time.a, c.time.b)[n])
    slower = by_id[SLOWER]
    assert (slower.time.speedup, slower.change, slower.matches) == (pytest.approx(0.5), "slower", (True, True))
    assert by_id[DIFFERS].matches == (True, False) and by_id["numpy"].change == "no clear change"
    worse = compare.regressions(result)
    assert [(r.kind, r.variant, r.candidate.id) for r in worse] == [
        (RegressionKind.CANDIDATE, h.id, SLOWER), (RegressionKind.CANDIDATE, h.id, DIFFERS)]  # the baseline's order
    where = f"{h.id} ({result.pairs[0].a} → {result.pairs[0].b})"
    assert [words.regression(r) for r in worse] == [
        f"{where}: NumPy rewrite compiled 2x slower a generation ({seconds(slower.time.a)} → "
        f"{seconds(slower.time.b)})", f"{where}: torch rewrite: its output no longer matches the program's"]


def test_the_candidates_in_the_terminal_the_page_and_the_json(tmp_path):
    base, second = _second_run(tmp_path)
    proc = run_cli("compare", base, second, "--fail-on-regression", "-o", tmp_path)
    assert proc.returncode == 3, proc.stderr
    result = compare.compare([analyze(load(base)), analyze(load(second))])
    (h,) = result.pairs[0].hotspots
    slower = next(c for c in h.candidates if c.id == SLOWER)
    assert (f"hot: fitness (plain_ga.py:24), called once per individual: {h.share[0]:.0%} of the run under torch "
            "2.13.0 (#1) " in proc.stdout)
    assert "50% of the run under torch 2.13.0 (#2)" in proc.stdout
    line = (f"NumPy rewrite compiled: {seconds(slower.time.a)} ({ratio(slower.faster[0])}) → "
            f"{seconds(slower.time.b)} ({ratio(slower.faster[1])}); 2x slower")
    assert f"    {line}\n" in proc.stdout
    differs = "its output differs from the program's under torch 2.13.0 (#2)"
    assert f"; as fast; {differs}\n" in proc.stdout  # the torch rewrite's line
    assert "Every candidate's output matched" not in proc.stdout  # one did not, under the second run
    html = (tmp_path / "plain_ga-compare.html").read_text()
    assert "Hot functions: the candidates side by side" in html
    assert (f'<tr><th scope="row">NumPy rewrite compiled</th><td class="num">{seconds(slower.time.a)}'
            f'<div class="small">{ratio(slower.faster[0])}</div></td>') in html
    assert f'<th scope="row">torch rewrite<div class="small err">{escape(differs)}</div></th>' in html
    assert '<table class="verdicts">' not in html  # the program compiled nothing: no table of compiled functions
    data = valid_json(renderer("json").comparison(result))
    shown = data["pairs"][0]["hotspots"][0]
    assert shown["function"] == "fitness" and shown["share"][1] == 0.5
    assert {c["id"]: c["change"] for c in shown["candidates"]}[SLOWER] == "slower"


def test_the_same_run_twice_says_each_candidate_matched_once_and_nothing_got_worse():
    analysis = analyze(load(record_path("2.13.0", "plain-vectorized_es")))
    result = compare.compare([analysis] * 2)
    (h,) = result.pairs[0].hotspots
    (hot,) = [x for x in analysis.program.hotspots if x.runs]
    assert [c.id for c in h.candidates] == [r.id for r in hot.runs] and len(hot.runs) > 1
    assert words.hot_sentence(result.pairs[0], h).endswith(
        "Every candidate's output matched the program's own.")
    assert compare.regressions(result) == []


@pytest.mark.parametrize("hotspots", [True, False])
def test_compare_program_runs_with_hot_spots_unless_told_not_to(monkeypatch, hotspots):
    """``compare_program`` asks each run for its hot spots (``--no-hotspots``: not), without running the program
    here: each run's record is the checked-in one."""
    asked = []

    def collect(program, args, module, python, **options):
        asked.append(options["hotspots"])
        return 0, load(record_path("2.13.0", "plain_ga"))
    monkeypatch.setattr(api, "_collect_program", collect)
    result = api.compare_program("samples/programs/plain_ga.py", runs=[api.Run(python=sys.executable)],
                                 hotspots=hotspots)
    assert asked == [hotspots, hotspots] and len(result.result.pairs[0].hotspots) == 1


def test_a_lock_holds_a_candidate_that_stopped_matching_and_calls_a_sequential_slowdown_inconclusive(tmp_path):
    """`inspector check --baseline` on a program: its runs were one after the other, so a compiled candidate slower
    under the second is a timing it cannot trust; one whose output no longer matches is a broken promise."""
    from inspector.contracts import facts
    base, second = _second_run(tmp_path)
    kinds = sorted((w.kind, w.interleaved, w.text) for w in facts.regressions(load(base), load(second)))
    assert [k[:2] for k in kinds] == [("candidate", False), ("time", False)], kinds
    assert "no longer" in kinds[0][2] or "differs" in kinds[0][2], kinds  # the torch rewrite's output
