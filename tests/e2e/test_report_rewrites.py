"""`inspector report` writes, checks and times its rewrites (issue 31; by default, issue 37), through the CLI at a
small population: the knapsack sample has both kinds, its fitness_python over the population and fitness_numpy's
breaks rewritten, and a torch variant whose breaks are declined with their reasons."""


import pytest

from conftest import run_cli, valid_json
from inspector.analysis import analyze
from inspector.record import load

RTOL = 1e-4  # not knapsack's TOLERANCE, nor the default


@pytest.fixture(scope="module")
def knapsack(tmp_path_factory):
    out = tmp_path_factory.mktemp("knapsack")
    proc = run_cli("report", "samples/knapsack_breaks.py", "-n", "2000", "--budget", "0.1", "--rounds", "2",
                   "--no-profile", "--no-try-fixes", "--no-warm", "--rtol", RTOL,
                   "-o", out)  # the rewrites: on by default
    return proc, out


def test_each_rewrite_is_checked_against_the_users_code_and_timed_eager_and_compiled(knapsack):
    proc, out = knapsack
    assert proc.returncode == 0, proc.stderr
    record = load(out / "knapsack_breaks.json")
    a = analyze(record)
    written = {r.id: r for r in a.rewrites}
    for rid, beside in (("python-rewritten-numpy", "python"), ("python-rewritten-torch", "python"),
                        ("numpy-rewritten", "numpy-compiled-cpu")):
        r = written[rid]
        assert r.advice and r.check and r.check.matched and not r.check.unchecked, (rid, r.check)
        assert r.check.rtol == RTOL  # --rtol, as the variants' cross-check takes it
        assert {x.how for x in r.runs} >= {"eager", "compiled"}
        for x in r.runs:  # each run cross-checked against its variant's output, timed in the same rounds
            if x.how not in ("eager", "compiled"):  # numba's, where it is installed: it may decline the code
                assert x.ok or x.error, x.id
                continue
            assert x.ok and x.matches and x.timing and x.rounds == record.rounds.rounds, (x.id, x.error)
            assert set(record.rounds.variants[x.id][0].to_json()) >= {"median_s", "round"}
        assert r.variant == beside
    assert written["python-rewritten-numpy"].check.evaluations == a.variant("python").timing.measured_population
    declined = written["torch-rewritten"]
    assert not declined.source and not declined.runs
    assert {d.reason for d in declined.declined} == {"host-value", "side-effect"}
    # the user's own figures count no rewrite
    assert {v.id for v in a.variants} == {v.id for v in record.variants}


def test_the_rewrites_are_shown_where_the_advice_is(knapsack):
    proc, out = knapsack
    page = (out / "knapsack_breaks.html").read_text()
    assert page.count('<pre class="hl rewrite">') == 3 and "def fitness_numpy_rewritten(population):" in page
    assert "not rewritten: the `.item()` at line 54" in page
    assert "rewrite: fitness_python over the whole population in NumPy" in proc.stdout
    analysis = valid_json(run_cli("render", out / "knapsack_breaks.json", "--format", "json").stdout)
    assert [r["id"] for r in analysis["rewrites"]][:3] == ["python-rewritten-numpy", "python-rewritten-torch",
                                                           "numpy-rewritten"]
