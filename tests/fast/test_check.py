"""`inspector check` from the checked-in records of both torch versions: promises judged per run, the forms CI reads
(text, GitHub annotations, JUnit, JSON), every kind of unknown, timing on the rounds, the lock, and records merged from
several jobs. No torch: the records are read, never made."""

import functools
import json
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import RECORDS, ROOT, VERSIONS, record_path, run_cli
from inspector.cli import app
from inspector.contracts import facts
from inspector.contracts.command import check, ci_job
from inspector.contracts.grammar import from_comments, parse_words
from inspector.contracts.judge import Outcome, judge
from inspector.contracts.lock import LockError
from inspector.contracts.result import message
from inspector.errors import InspectorError
from inspector.record import load

CONSTRAINT = "((x**2 + z**2) <= 10)\n"  # the end of poly's constraint line


@functools.cache
def run(version, stem):
    """The facts of a checked-in record (read once per session; values are frozen)."""
    return facts.read(load(record_path(version, stem)), stem)


def copy(tmp_path, sample, *edits, above=""):
    """A copy of a sample in ``tmp_path``, without its own contracts, with ``edits`` ((old, new), each found once)
    and ``above`` put first."""
    text = re.sub(r"  # inspector:.*$", "", (ROOT / sample).read_text(), flags=re.M)
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / Path(sample).name
    path.write_text(above + text)
    return path


def judged(path, runs):
    contracts, problems = from_comments(path, path.read_text())
    assert problems == []
    return judge(contracts, runs)


def only(verdicts, promise):
    (found,) = [v for v in verdicts if v.promise == promise]
    return found


def both(stem):
    return [run(v, stem) for v in VERSIONS]


@pytest.fixture
def poly_vectorized(tmp_path, monkeypatch):
    """poly.py with `vectorized` on its constraint line, two lines lower than in the records, checked in tmp_path."""
    monkeypatch.chdir(tmp_path)
    return copy(tmp_path, "samples/poly.py", (CONSTRAINT, CONSTRAINT[:-1] + "  # inspector: vectorized\n"),
                above="# moved down\n\n")


def records_of_both(*stems):
    return [record_path(v, s) for v in VERSIONS for s in stems]


def test_vectorized_on_polys_constraint_line_holds_under_2_1_and_is_violated_under_2_13_with_its_reason(
        poly_vectorized):
    result = check([poly_vectorized], records=records_of_both("poly"))
    (v,) = result.verdicts
    assert (v.place.file, v.place.line, v.place.column, v.outcome) == ("poly.py", 60, 5, Outcome.VIOLATED)
    assert {(j.run, j.outcome) for j in v.judgements} == {("torch 2.1.2", Outcome.HOLDS),
                                                           ("torch 2.13.0", Outcome.VIOLATED)}
    said = message(v)
    assert said.startswith("not vectorized under torch 2.13.0 (vectorized under 2.1.2): 16 of its 48 operations "
                           "index memory non-contiguously")
    assert "cpp.enable_tiling_heuristics" in said and said.endswith("[inspector: vectorized]")
    assert " nest 1: scalar only (machine code)" in said and "kernel cpp_fused_" in said
    assert result.exit_code == 3
    # the text form: compiler-style, then the summary
    first, summary = result.render("text").splitlines()
    assert first == f"poly.py:60:5: error: {said}"
    assert summary.startswith("inspector check: 0 of 1 promises hold, 1 violated, 0 unknown, 0 inconclusive")
    # GitHub's workflow commands: the annotation at the line, its title the promise
    (annotation,) = [x for x in result.render("github").splitlines() if x.startswith("::error")]
    assert annotation.startswith("::error file=poly.py,line=60,col=5,title=inspector%3A vectorized::not vectorized "
                                 "under torch 2.13.0 (vectorized under 2.1.2): 16 of its 48")
    # a JUnit file: one failing test case, with every run's judgement
    suite = ET.fromstring(result.render("junit")).find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "1")
    case = suite.find("testcase")
    assert case.get("name") == "poly.py:60 vectorized" and case.find("failure").get("message") == said
    assert "holds: torch 2.1.2 numpy-compiled-cpu: vectorized" in case.find("failure").text
    data = json.loads(result.render("json"))
    assert data["exit_code"] == 3 and data["summary"]["violated"] == 1 and len(data["verdicts"][0]["judgements"]) == 4


def test_the_command_line_says_it_and_exits_3(poly_vectorized):
    proc = run_cli("check", poly_vectorized.name, *[a for p in records_of_both("poly") for a in ("--records", p)],
                   cwd=poly_vectorized.parent)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.startswith("poly.py:60:5: error: not vectorized under torch 2.13.0 (vectorized under 2.1.2): ")


def test_our_samples_keep_the_promises_the_readme_makes_under_both_torch_versions():
    """What .ci/run checks: the samples' comments and pyproject.toml's table, on every checked-in record."""
    result = check(records=[RECORDS / f"torch-{v}" for v in VERSIONS], strict=True)
    assert result.exit_code == 0 and result.problems == () and len(result.verdicts) == 10
    assert {v.outcome for v in result.verdicts} == {Outcome.HOLDS}
    promised = {(v.place.file, v.place.line, v.promise) for v in result.verdicts}
    assert {("samples/poly.py", line, "parallel") for line in (55, 56, 57, 58)} <= promised
    assert {("samples/trig.py", 61, "graphs=1"), ("samples/trig.py", 76, "graphs=1")} <= promised
    (limit,) = [v for v in result.verdicts if v.promise == "limit-hit"]
    assert [j.run for j in limit.judgements] == ["torch 2.13.0"]  # torch>=2.13: under 2.1.2 it never hit it
    ga = [v for v in result.verdicts if v.place.file == "samples/programs/ga.py"]
    assert {v.site.file for v in ga} == {"pyproject.toml"} and len(ga) == 3


def test_a_programs_contract_is_checked_with_program(monkeypatch):
    result = check(program="samples/programs/ga.py", records=[RECORDS / f"torch-{v}" for v in VERSIONS])
    assert [(v.place.line, v.promise, v.outcome) for v in result.verdicts] == [
        (19, "breaks>=1", Outcome.HOLDS), (19, "no-limit-hit", Outcome.HOLDS), (19, "recompiles>=1", Outcome.HOLDS)]
    said = {j.said for v in result.verdicts for j in v.judgements}
    assert {"2 graph breaks", "3 graph breaks", "4 recompiles", "2 recompiles"} <= said


def test_out_writes_each_runs_report_and_an_index_with_a_row_for_a_program_too(tmp_path):
    check(records=[record_path("2.13.0", s) for s in ("poly", "ga")], out=tmp_path)
    index = (tmp_path / "index.html").read_text()
    assert 'href="poly.html"' in index and 'href="ga.html"' in index  # the program's row is there
    ga = index[index.index('href="ga.html"'):]
    assert "a program's run" in ga[:ga.index("</tr>")] and "fitness: " in ga[:ga.index("</tr>")]
    assert '<a href="index.html">← index</a>' in (tmp_path / "ga.html").read_text()  # and links back


def test_line_words_on_a_def_promise_each_line_and_allow_eager_lets_a_line_run_eagerly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "samples/programs/ga.py",
                ("def fitness(pop, penalty):\n", "def fitness(pop, penalty):  # inspector: compiled\n"),
                ("    best = value.min().item()\n", "    best = value.min().item()  # inspector: allow eager\n"),
                ("    print(f\"  best", "    # inspector: allow eager\n    print(f\"  best"))
    verdicts = {(v.place.line, v.outcome) for v in judged(path, both("ga"))}
    # 20-22 compiled; .item() and print break the graph, allowed; the branch and return after them run eagerly, and
    # the branch's body did not run (no evidence names it: unknown, never a pass)
    assert verdicts == {(20, Outcome.HOLDS), (21, Outcome.HOLDS), (22, Outcome.HOLDS), (23, Outcome.HOLDS),
                        (25, Outcome.HOLDS), (26, Outcome.VIOLATED), (27, Outcome.UNKNOWN), (28, Outcome.VIOLATED)}


def unknown(verdict, why):
    """``verdict`` is unknown (never holds), and a judgement says ``why``, unknown too."""
    assert verdict.outcome == Outcome.UNKNOWN
    assert [j.outcome for j in verdict.judgements if why in j.why][:1] == [Outcome.UNKNOWN], verdict.judgements


def with_env(version, stem, **env):
    record = load(record_path(version, stem))
    return facts.read(record.but(env=record.env.but(**env)), stem)


def test_unknown_no_simd_isa(tmp_path):
    path = copy(tmp_path, "samples/poly.py", (CONSTRAINT, CONSTRAINT[:-1] + "  # inspector: vectorized\n"))
    unknown(only(judged(path, [with_env("2.13.0", "poly", isa="DEFAULT")]), "vectorized"),
            "this CPU has no SIMD instruction set torch vectorizes for (ISA: DEFAULT)")


def test_unknown_one_thread(tmp_path):
    path = copy(tmp_path, "samples/programs/ga.py", ("    excess = torch.clamp(pop[:, 0] + pop[:, 1] - BOUND, min=0)\n",
                                                     "    excess = torch.clamp(pop[:, 0] + pop[:, 1] - BOUND, min=0)"
                                                     "  # inspector: parallel\n"))
    assert only(judged(path, [run("2.1.2", "ga")]), "parallel").outcome == Outcome.VIOLATED  # serial on 2 threads
    unknown(only(judged(path, [with_env("2.1.2", "ga", threads=1)]), "parallel"), "torch ran on one thread here")


def test_unknown_a_compile_time_the_torch_does_not_report(tmp_path):
    path = copy(tmp_path, "samples/poly.py", ("def fitness_numpy(solutions):\n",
                                              "def fitness_numpy(solutions):  # inspector: compile<=60s\n"))
    verdict = only(judged(path, both("poly")), "compile<=60s")
    unknown(verdict, "torch 2.1.2 reported no compile time for it (a hook it lacks)")
    assert [j.outcome for j in verdict.judgements if j.run == "torch 2.13.0"] == [Outcome.HOLDS]


def test_unknown_a_cached_compile_that_skipped_code_generation(tmp_path):
    record = load(record_path("2.13.0", "poly"))
    cached = [v.but(capture=v.capture.but(graphs=[g.but(fx_graph_cache="hit") for g in v.capture.graphs]))
              if v.capture and v.capture.graphs else v for v in record.variants]
    path = copy(tmp_path, "samples/poly.py", ("def fitness_numpy(solutions):\n",
                                              "def fitness_numpy(solutions):  # inspector: compile<=60s\n"))
    unknown(only(judged(path, [facts.read(record.but(variants=cached), "poly")]), "compile<=60s"),
            "an FX graph cache hit: Inductor loaded the compiled code and skipped code generation")


def test_unknown_a_line_that_did_not_run(tmp_path):
    path = copy(tmp_path, "samples/programs/ga.py", ("        value = value + best * 0.0\n",
                                                     "        value = value + best * 0.0  # inspector: compiled\n"))
    unknown(only(judged(path, both("ga")), "compiled"), "no evidence names it here: it did not run")


def test_unknown_no_run_of_the_file_and_strict_fails_on_unknown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "samples/poly.py", ("def fitness_numpy(solutions):\n",
                                              "def fitness_numpy(solutions):  # inspector: compile<=60s\n"))
    assert check([path], records=[record_path("2.1.2", "poly")]).exit_code == 0  # a warning
    assert check([path], records=[record_path("2.1.2", "poly")], strict=True).exit_code == 3
    (path.parent / "other.py").write_text("x = 1  # inspector: parallel\n")
    verdicts = judge(from_comments(path.parent / "other.py", "x = 1  # inspector: parallel\n")[0], both("poly"))
    unknown(verdicts[0], "no run checked here is of other.py")


def test_a_speedup_holds_only_when_every_round_clears_it_and_a_busy_machine_makes_no_violation(tmp_path):
    record = load(record_path("2.13.0", "poly"))
    # the same record as if other processes had used half the CPUs while each variant was timed
    busy = record.but(variants=[v.but(load=v.load.but(others_cpu_s=v.load.cpu_total_s / 2)) if v.load and
                                v.load.cpu_total_s else v for v in record.variants])

    def contract(*bounds, on=record):
        words = " ".join(f"faster-than=numpy:{b:.3f}x" for b in bounds)
        path = copy(tmp_path, "samples/poly.py", ("def fitness_torch(solutions):\n",
                                                  f"def fitness_torch(solutions):  # inspector: {words}\n"))
        return judged(path, [facts.read(on, "poly")])

    (measured,) = only(contract(1.0), "faster-than=numpy:1.000x").judgements
    rounds = measured.values
    assert len(rounds) >= 3 and min(rounds) > 1
    low, high = 0.9 * min(rounds), 1.1 * max(rounds)
    for on, outcome in ((record, Outcome.VIOLATED), (busy, Outcome.INCONCLUSIVE)):
        verdicts = contract(low, high, on=on)
        (held,) = only(verdicts, f"faster-than=numpy:{low:.3f}x").judgements
        assert held.outcome == Outcome.HOLDS and held.values == pytest.approx(rounds)
        (missed,) = only(verdicts, f"faster-than=numpy:{high:.3f}x").judgements
        assert missed.outcome == outcome and ("but timed on a busy machine" in missed.why) == (on is busy)


def speedup(low, high, rounds=3, busy=None, once=None):
    function = next(f for f in run("2.13.0", "poly").functions if f.variant == "numpy-compiled-cpu")
    timing = facts.Speedup("numpy", rounds, low, None if low is None else (low + high) / 2, high, once, busy)
    numbers = replace(run("2.13.0", "poly"), functions=(replace(function, speedups=(timing,)),))
    term = parse_words("faster-than=numpy:3x").terms
    contracts = from_comments(Path("poly.py"), (ROOT / "samples/poly.py").read_text().replace(
        "def fitness_numpy(solutions):", "def fitness_numpy(solutions):  # inspector: faster-than=numpy:3x"))[0]
    (target,) = [c for c in contracts if c.terms == term]
    (verdict,) = judge([target], [numbers])
    return verdict.outcome, verdict.judgements[0].why


@pytest.mark.parametrize("timing, outcome, why", [
    (dict(low=3.1, high=3.6), Outcome.HOLDS, ""),
    (dict(low=2.1, high=2.9), Outcome.VIOLATED, "every round under 3x"),
    (dict(low=2.8, high=3.3), Outcome.INCONCLUSIVE, "the rounds straddle 3x: rerun, or --rounds N"),
    (dict(low=2.1, high=2.9, busy="timed on a busy machine: x"), Outcome.INCONCLUSIVE, "but timed on a busy machine"),
    (dict(low=None, high=None, rounds=0, once=2.0), Outcome.INCONCLUSIVE, "not timed in alternating rounds"),
])
def test_timing_outcomes_from_the_rounds(timing, outcome, why):
    found = speedup(**timing)
    assert found[0] == outcome and why in found[1]


def test_a_programs_function_is_timed_against_its_eager_replay_only(tmp_path):
    path = copy(tmp_path, "samples/programs/ga.py", ("def fitness(pop, penalty):\n",
                                                     "def fitness(pop, penalty):  # inspector: faster-than=numpy:2x "
                                                     "faster-than=eager:2x\n"))
    verdicts = judged(path, both("ga"))
    unknown(only(verdicts, "faster-than=numpy:2x"), "timed against its eager replay only")
    unknown(only(verdicts, "faster-than=eager:2x"), "no eager timing in this run")


def test_update_writes_a_lock_and_baseline_fails_on_what_got_worse_by_compares_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "inspector.lock"
    old = [record_path("2.1.2", s) for s in ("poly", "ga")]
    assert check(records=old, baseline=lock, update=True).notes[0] == f"wrote {lock} (2 runs)"
    data = json.loads(lock.read_text())
    assert data["format"] == "inspector.lock/1" and data["runs"][0]["torch"] == "2.1.2+cu121"
    assert "samples/poly.py:58 parallel, vectorized" in data["runs"][0]["lines"]["numpy-compiled-cpu"]
    same = check(records=old, baseline=lock)
    assert same.exit_code == 0 and {v.outcome for v in same.verdicts} == {Outcome.HOLDS}
    result = check(records=[record_path("2.13.0", s) for s in ("poly", "ga")], baseline=lock)
    worse = {(v.place.file, v.place.line): message(v) for v in result.verdicts if v.outcome == Outcome.VIOLATED}
    assert result.exit_code == 3 and len(worse) == 13
    assert worse[("samples/poly.py", 58)].startswith("parallel, vectorized → parallel, not vectorized under torch "
                                                     "2.13.0: worse than inspector.lock (its run under torch 2.1.2)")
    assert worse[("samples/programs/ga.py", 24)].startswith("a graph break gained at line 24: BUILD_STRING")
    # a line marked allow eager may break the graph (the copy on disk is read, as a checkout's would be)
    (tmp_path / "samples" / "programs").mkdir(parents=True)
    copy(tmp_path / "samples" / "programs", "samples/programs/ga.py", ('    print(f"  best of this generation: '
         '{best:.3f}")\n', '    print(f"  best of this generation: {best:.3f}")  # inspector: allow eager\n'))
    allowed = check(records=[record_path("2.13.0", "ga")], baseline=lock)
    assert allowed.exit_code == 0 and [v.outcome for v in allowed.verdicts] == [Outcome.HOLDS]


def test_a_lock_changed_by_hand_or_without_the_run_is_never_a_pass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "inspector.lock"
    check(records=[record_path("2.1.2", "poly")], baseline=lock, update=True)
    other = check(records=[record_path("2.13.0", "trig")], baseline=lock)
    unknown(other.verdicts[0], "inspector.lock has no run of samples/trig.py under torch 2.13.0")
    data = json.loads(lock.read_text())
    data["runs"][0]["digest"] = "sha256:0"
    lock.write_text(json.dumps(data))
    with pytest.raises(LockError, match="its digest does not match: it was changed by hand"):
        check(records=[record_path("2.13.0", "poly")], baseline=lock)


def test_records_of_several_jobs_are_merged_each_verdict_names_its_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "samples/poly.py", (CONSTRAINT, CONSTRAINT[:-1] + "  # inspector: vectorized\n"))
    for version in VERSIONS:  # as download-artifact lays them out: a folder per job
        (tmp_path / "records" / f"leg-{version}").mkdir(parents=True)
        shutil.copy(record_path(version, "poly"), tmp_path / "records" / f"leg-{version}" / "poly.json")
    (tmp_path / "records" / "leg-2.1.2" / "summary.json").write_text('{"not": "a record"}')
    result = check([path], records=[tmp_path / "records"])
    assert {j.run for v in result.verdicts for j in v.judgements} == {"torch 2.1.2 (leg-2.1.2)",
                                                                      "torch 2.13.0 (leg-2.13.0)"}
    assert "skipped 1 JSON file that is not an inspector record" in result.notes
    assert message(result.verdicts[0]).startswith("not vectorized under torch 2.13.0 (leg-2.13.0) (vectorized under "
                                                  "2.1.2 (leg-2.1.2))")
    only_new = check([path], records=[tmp_path / "records"], torch=["2.13"])
    assert {j.run for v in only_new.verdicts for j in v.judgements} == {"torch 2.13.0 (leg-2.13.0)"}
    named = check([path], records=[tmp_path / "records"], job="nightly")
    assert {j.run for v in named.verdicts for j in v.judgements} == {"torch 2.1.2 (nightly)", "torch 2.13.0 (nightly)"}


def test_inputs_that_cannot_be_used_exit_2_and_the_rest_is_still_judged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "samples/poly.py", (CONSTRAINT, CONSTRAINT[:-1] + "  # inspector: vectorized fast\n"))
    (tmp_path / "broken.json").write_text("{")
    result = check([path], records=[record_path("2.13.0", "poly"), tmp_path / "broken.json", tmp_path / "none"])
    texts = [p.text for p in result.problems]
    assert result.exit_code == 2 and any("fast: not a contract word" in t for t in texts)
    assert any("broken.json: cannot read it as JSON" in t for t in texts) and any("none: no such" in t for t in texts)
    assert [v.outcome for v in result.verdicts] == [Outcome.VIOLATED]
    assert "poly.py:58:5: error: fast: not a contract word (known: parallel, " in result.render("text")
    nothing = check([path], records=[record_path("2.13.0", "trig")])
    assert nothing.exit_code == 2 and any("no record in" in p.text for p in nothing.problems)
    unknown(nothing.verdicts[0], "no run checked here is of poly.py")


def test_the_job_defaults_to_the_cis_own_variable():
    assert ci_job({"GITHUB_JOB": "measure", "CI_JOB_NAME": "x"}) == "measure"
    assert ci_job({"CI_JOB_NAME": "measure: [2.13.0]"}) == "measure: [2.13.0]" and ci_job({}) is None



@pytest.mark.parametrize("args, said", [
    (["--format", "xml"], "--format xml: expected text, json, github, junit"),
    (["--bogus", "samples/poly.py"], "no such option: --bogus"),
    ([], "give sample files or folders, --program PROGRAM [ARGS...], or --records DIR"),
    (["--program", "-m"], "--program -m: name the module"),
])
def test_a_bad_command_line_is_one_error(args, said):
    result = CliRunner().invoke(app, ["check", *args])
    assert isinstance(result.exception, InspectorError) and str(result.exception) == said
    assert result.exception.code == 2


def test_a_programs_share_of_the_run_is_promised_on_any_function_compiled_or_not(tmp_path):
    hot = run("2.13.0", "plain_ga")
    fitness = next(h for h in hot.hot if h.function == "fitness")
    below, above = f"{int(fitness.share * 100) + 1}%", f"{max(1, int(fitness.share * 100) - 1)}%"
    path = copy(tmp_path, "samples/programs/plain_ga.py",
                ("def fitness(individual):\n", f"def fitness(individual):  # inspector: share<={below} "
                                                f"share<={above}\n"),
                ("def random_individual():\n", "def random_individual():  # inspector: share<=99.5%\n"))
    verdicts = judged(path, [hot])
    assert only(verdicts, f"share<={below}").outcome is Outcome.HOLDS
    violated = only(verdicts, f"share<={above}")
    assert violated.outcome is Outcome.VIOLATED and f"{fitness.share:.0%} of the run" in violated.judgements[0].said
    # a function the record does not list held less than the least it lists (every one over 2 %, six at most)
    unlisted = replace(hot, hot=tuple(h for h in hot.hot if h.function != "random_individual"))
    held = only(judged(path, [unlisted]), "share<=99.5%")
    assert held.outcome is Outcome.HOLDS and "under 2% of the run" in held.judgements[0].said
    # a program whose time was not sampled: unknown, never a pass
    unknown(only(judged(path, [replace(hot, hot=(), sampled=False)]), "share<=99.5%"), "was not sampled")
    assert parse_words("share<=20").problems == ("share<=20: expected a percentage (20%) after <=",)


def test_pays_after_cold_and_on_a_rerun_and_unknown_where_a_rerun_was_not_measured(tmp_path):
    path = copy(tmp_path, "samples/poly.py", ("def fitness_torch(solutions):\n", "def fitness_torch(solutions):  "
                                              "# inspector: pays-after<=1000000 pays-after-warm<=1000000\n"))
    record = load(record_path("2.13.0", "poly"))
    v = facts.read(record, "poly")
    found = {f.variant: f for f in v.functions}["torch-compiled-cpu"]
    assert found.pays_after.calls and found.warm_pays_after.calls  # both measured in the record
    cold, warm = (only(judged(path, [v]), word) for word in ("pays-after<=1000000", "pays-after-warm<=1000000"))
    assert [j.outcome for j in cold.judgements] == [Outcome.HOLDS] == [j.outcome for j in warm.judgements]
    assert warm.judgements[0].said == f"pays after {found.warm_pays_after.calls:,.0f} calls on a rerun"
    unwarmed = facts.read(record.but(variants=[x.but(warm=None) for x in record.variants]), "poly")
    unknown(only(judged(path, [unwarmed]), "pays-after-warm<=1000000"),
            "the compile of a rerun was not measured here (--no-warm, or a program's function not replayed)")
    tight = copy(tmp_path, "samples/poly.py", ("def fitness_torch(solutions):\n",
                                               "def fitness_torch(solutions):  # inspector: pays-after-warm<=1\n"))
    assert [j.outcome for j in only(judged(tight, [v]), "pays-after-warm<=1").judgements] == [Outcome.VIOLATED]
