"""`inspector compare` through the CLI: a one-shot run of two configurations of this interpreter (real compiles),
records compared from disk, and its one-line errors (its option errors are the fast layer's)."""

import json
import re
import shutil
import sys

import pytest

from conftest import record_path, run_cli

FLAG = "cpp.enable_tiling_heuristics=False"


def test_one_shot_compare_shows_the_kernel_diff_and_the_verdict_change(tmp_path):
    proc = run_cli("compare", "samples/poly.py", "--run", FLAG, "-n", 5000, "--budget", 0.05, "--rounds", 3,
                   "-v", "torch-compiled-cpu", "--no-warm", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    records = sorted(tmp_path.glob("poly-*.json"), key=lambda p: len(p.name))
    assert len(records) == 2 and FLAG.replace("=", "-") in records[1].name
    torch = json.loads(records[0].read_text())["env"]["torch"].split("+")[0]
    base, flagged = f"torch {torch}", f"torch {torch} {FLAG}"
    assert f"samples/poly.py: {base} → {flagged}" in proc.stdout
    assert "vectorized: no → yes" in proc.stdout
    assert (f"lines 48-51, 55-58, 67-68 (objective, check_constraints, fitness_torch): parallel, not vectorized "
            f"under {base} → parallel, vectorized under {flagged}") in proc.stdout
    html = (tmp_path / "poly-compare.html").read_text()
    assert "<h3 id=\"p0-torch-compiled-cpu\">torch-compiled-cpu</h3>" in html
    assert re.search(r'<span class="add">\+.*at::vec::', html)
    assert 'class="differs"' in html and "http" not in html.replace("http-equiv", "")
    # both probes stayed alive and took turns: every time compared round by round
    rounds = [json.loads(r.read_text())["rounds"] for r in records]
    assert rounds[0]["session"] == rounds[1]["session"] and [r["position"] for r in rounds] == [0, 1]
    assert proc.stdout.count("in 3 alternating rounds") == 1 and "timing every run's variants again" in proc.stderr
    # the flag made the lines vectorized; the other way round, CI fails on the lost vectorization
    back = run_cli("compare", records[1], records[0], "--fail-on-regression", "-o", tmp_path)
    assert back.returncode == 3, back.stderr
    assert (f"regression: torch-compiled-cpu ({flagged} → {base}): line 48: parallel, vectorized → parallel, "
            "not vectorized") in back.stderr


def test_records_of_two_torch_versions_compare_from_disk(tmp_path):
    for version in ("2.1.2", "2.13.0"):
        shutil.copy(record_path(version, "poly"), tmp_path / f"poly-{version}.json")
    proc = run_cli("compare", tmp_path / "poly-2.1.2.json", tmp_path / "poly-2.13.0.json")
    assert proc.returncode == 0, proc.stderr
    assert "samples/poly.py: torch 2.1.2 → torch 2.13.0" in proc.stdout
    assert (tmp_path / "poly-compare.html").exists()


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"hello": 1}', "not an inspector record"),
])
def test_corrupt_records_are_one_line_errors(tmp_path, content, message):
    (tmp_path / "bad.json").write_text(content)
    (tmp_path / "other.json").write_text(content)
    proc = run_cli("compare", tmp_path / "bad.json", tmp_path / "other.json")
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_records_of_different_samples_are_refused(tmp_path):
    proc = run_cli("compare", record_path("2.13.0", "poly"), record_path("2.13.0", "trig"))
    assert proc.returncode == 2 and "different samples (poly.py, trig.py)" in proc.stderr
    proc = run_cli("compare", record_path("2.13.0", "poly"))
    assert proc.returncode == 2 and "at least two records" in proc.stderr


def test_a_program_compared_under_two_interpreters_runs_as_it_is_without_a_replay(tmp_path):
    """`compare --program`: the program run once per run (here twice under this interpreter), its compiled functions
    compared; no replay (a comparison shows none), so each run is the program's alone. (Dynamo's eager backend: the
    kernels' comparison is the one-shot compare's.)"""
    proc = run_cli("compare", "--program", "tests/programs/dynamo_only.py", "--python", sys.executable,
                   "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    records = sorted(tmp_path.glob("dynamo_only-*.json"))
    assert len(records) == 2 and (tmp_path / "dynamo_only-compare.html").is_file()
    for path in records:
        (f,) = json.loads(path.read_text())["variants"]
        assert f["run"]["calls"] == 4 and f["run"]["replay"] == {"why": "--no-replay"}
    assert "f: time per steady call" in proc.stdout and "calls 4 → 4" in proc.stdout
