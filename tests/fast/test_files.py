"""Real code: verdicts over every file a variant's code came from (the sample, its own modules, libraries),
graph breaks at their real site, recompilation, and redaction, from checked-in probe output."""

import json
import statistics

import pytest

from conftest import VERSIONS, analysis, line_of, record_path
from inspector.analysis import analyze, breaks, compiled
from inspector.record import redact
from inspector.render import renderer
from inspector.model import BreakFix, BreaksView
from inspector.raw import RawRecord, RawVariant
from inspector.render.said import rewrite, said


@pytest.mark.parametrize("version", VERSIONS)
def test_a_librarys_own_lines_get_verdicts_and_its_break_is_shown_at_its_site(version):
    a = analysis(version, "pymoo_g7")
    assert [(f.display, f.kind) for f in a.files] == [
        ("samples/libraries/pymoo_g7.py", "sample"), ("pymoo/gradient/toolbox/__init__.py", "library"),
        ("pymoo/problems/single/g.py", "library")]
    v = a.variant("numpy-compiled-cpu")
    g = a.file("pymoo/problems/single/g.py")
    verdicts = {g.text(e.line): (e.status, e.vectorized) for e in v.code.lines if e.file == g.display}
    constraints = [text for text in verdicts if text[:2] in {f"g{i}" for i in range(1, 9)}]
    # torch 2.1 resumes after the break without compiling pymoo's frame: its lines run as Python, and say so
    expected = ("parallel", "none") if version != "2.1.2" else ("eager", None)
    assert len(constraints) == 8 and {verdicts[c] for c in constraints} == {expected}
    assert verdicts["f = ("] == expected  # the objective, a statement over 16 lines
    (b,) = v.code.breaks
    assert (b.file, b.line, b.where, b.cause) == ("pymoo/gradient/toolbox/__init__.py", 14, "library",
                                                  "skipped-function")
    assert b.chain == [("samples/libraries/pymoo_g7.py", line_of(a, "PROBLEM._evaluate(x, out)")),
                       ("pymoo/problems/single/g.py", 324), ("pymoo/gradient/toolbox/__init__.py", 14)]
    assert b.code.startswith("backend_module = importlib.import_module(")
    fix = rewrite(b.usual) or ""
    assert "wrap the call into it at samples/libraries/pymoo_g7.py:" in fix and "report it to pymoo" in fix
    assert b.flag is None
    at = {(e.file, e.line): e for e in v.code.lines}
    call = at["samples/libraries/pymoo_g7.py", line_of(a, "PROBLEM._evaluate(x, out)")]
    assert call.status == "graph-break" and any("inside this call, at pymoo/gradient" in said(r) for r in call.why)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_samples_own_helper_module_is_annotated(version):
    a = analysis(version, "penalised")
    assert [(f.display, f.kind) for f in a.files] == [("samples/penalised.py", "sample"),
                                                      ("samples/helpers/penalties.py", "user")]
    helper = a.file("samples/helpers/penalties.py")
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):  # a functools.partial and a lambda of the helper
        v = a.variant(vid)
        mine = {e.line: e for e in v.code.lines if e.file == helper.display}
        assert set(mine) == {7, 12, 16}
        if version == "2.1.2" and vid == "numpy-compiled-cpu":  # 2.1 cannot call the partial inside a graph
            (b,) = v.code.breaks
            assert (b.where, b.file, b.chain) == ("torch", "torch/_dynamo/external_utils.py", [])
            assert b.fix == BreakFix.TORCH_CODE and "before any line of yours ran" in (rewrite(b.usual) or "")
            assert mine[7].status == "parallel" and {mine[12].status, mine[16].status} == {"eager"}
            continue
        assert all(e.status == "parallel" and e.nests for e in mine.values()), vid
    page = renderer("html").report(a)
    assert "<code>samples/helpers/penalties.py</code>" in page and "your module" in page


@pytest.mark.parametrize("version", VERSIONS)
def test_five_problems_are_five_families_each_checked_and_compared_within_itself(version):
    a = analysis(version, "five_problems")
    families = {"sphere", "rastrigin", "rosenbrock", "ackley", "griewank"}
    assert {v.family for v in a.variants} == families and not a.failed
    for v in a.variants:
        if v.status != "ok" or v.kind == "python":
            continue
        own = v.id.split("-")[0]
        assert v.check.against == (own if v.compiled else f"python_{v.family}"), v.id
        numpy = a.variant(f"numpy_{v.family}")
        mine, theirs = v.timing.rounds_s, numpy.timing.rounds_s  # taken side by side, round by round
        assert v.speedups.vs_numpy == pytest.approx(statistics.median(theirs.values())
                                                    / statistics.median(mine.values()))


@pytest.mark.parametrize("version", VERSIONS)
def test_two_objectives_per_individual_are_timed_and_checked(version):
    a = analysis(version, "two_objectives")
    assert not a.failed and a.variant("python").check.matches is True
    assert {v.id: v.check.against for v in a.variants if v.status == "ok"} == {
        "python": None, "numpy": "python", "numpy-compiled-cpu": "numpy", "torch": "python",
        "torch-compiled-cpu": "torch"}


def test_a_variant_that_hits_the_recompile_limit_says_so_everywhere():
    a = analysis("2.13.0", "recompiling")
    v = a.variant("torch-compiled-cpu")
    r = v.code.recompilation
    # torch logs 7 recompiles: its 8th compile of the frame stopped at the limit (no graph), torch's last reason
    assert r.limit == "recompile_limit = 8" and r.count == 7 and r.calls > r.count
    assert r.guards == [(r.guards[0][0], 7)] and r.guards[0][0].text.startswith("G['CALLS']['n'] == …")
    assert "the guard that failed last: G['CALLS']['n'] == 611 (at recompiling.py:22)" in said(r)
    assert [w.kind for w in v.code.warnings] == ["recompile-limit"]
    assert a.variant("numpy-compiled-cpu").code.recompilation is None
    page = renderer("html").report(a)
    assert "hit torch&#39;s recompile limit (recompile_limit = 8) after 7 recompiles" in page
    assert "hit torch's recompile limit" in renderer("text").report(a)
    view = BreaksView(a.sample.path, a.env.torch, a.sample.population, a.findings)
    assert "warning: hit torch's recompile limit (recompile_limit = 8)" in renderer("text").breaks(view)
    assert json.loads(renderer("json").breaks(view))["variants"][0]["recompilation"]["limit"] == "recompile_limit = 8"


def test_a_guard_on_a_fresh_object_each_call_is_one_guard_and_every_call_says_so():
    """EvoTorch's decorators build a class per call: the guard names a new object id each time."""
    reasons = [f"1/{i}: ___check_obj_id(___stack0, {94399135217488 + 7919 * i}), type=<class 'tensor_info'>"
               for i in range(1, 6)]
    raw = {"calls": 5, "recompiles": {"graphs": [{"compile_id": r.split(":")[0], "metrics": {"recompile_reason": r}}
                                                 for r in reasons], "limits": []}}
    raw = RawVariant.from_json(raw)
    pieces = compiled.read(compiled.NONE, raw.recompiles or compiled.NONE, False, ())
    r = breaks.recompilation(pieces.first, pieces.later, pieces.limits, False, raw.calls)
    assert [(g.text, n) for g, n in r.guards] == [("___check_obj_id(___stack0, …), type=<class 'tensor_info'>", 5)]
    assert r.every_call and said(r).startswith("recompiled on every call (5 recompiles in 5 calls after the first)")


def test_a_redacted_record_names_no_path_of_the_machine_and_still_analyses():
    record = json.loads(record_path("2.13.0", "pymoo_g7").read_text())
    record["probe_log"] = "generation 1: best 12.5"
    out = redact(RawRecord.from_json(record), home="/home/user")
    text = json.dumps(out.to_json())
    assert "/home/user/" not in text and "/opt/python" not in text.replace("<python>", "")
    assert "site-packages/" not in text and "<site-packages>/pymoo/problems/single/g.py" in text
    assert out.probe_log == "(redacted: the program's printed output)" and out.env.executable == "<python>"
    a = analyze(out)
    assert [f.display for f in a.files][1:] == ["pymoo/gradient/toolbox/__init__.py", "pymoo/problems/single/g.py"]
    assert a.variant("numpy-compiled-cpu").code.breaks[0].where == "library"


def test_a_file_outside_the_samples_folder_is_named_as_the_sample_is_relative_or_absolute():
    """Paths in one sentence all relative (to where the program was given from) or all absolute (issue 30, item 9)."""
    from inspector.files import display
    from inspector.raw import RawEnv
    env = RawEnv.from_json({})
    assert display("/a/lib/u.py", "user", "bench/app.py", "/a/b/bench/app.py", env) == "../lib/u.py"
    assert display("/a/b/bench/h.py", "user", "bench/app.py", "/a/b/bench/app.py", env) == "bench/h.py"
    assert display("/a/lib/u.py", "user", "/a/b/bench/app.py", "/a/b/bench/app.py", env) == "/a/lib/u.py"
