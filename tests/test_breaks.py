"""`inspector breaks` through the CLI, on real compiles, against torch's own graph-break log."""

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli

TORCH_LOG = r"""
import sys, importlib.util, numpy as np, torch
torch._logging.set_logs(graph_breaks=True)
spec = importlib.util.spec_from_file_location("s", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
pop = m.population(int(sys.argv[3]), np.random.default_rng(0))
fn = torch.compile(getattr(m, sys.argv[2]))
fn(torch.from_numpy(pop) if sys.argv[2].startswith("fitness_torch") else pop)
"""


def torch_reported_lines(sample, function, n):
    """Break lines in the sample as torch's own TORCH_LOGS=graph_breaks prints them: the oracle."""
    proc = subprocess.run([sys.executable, "-c", TORCH_LOG, str(ROOT / sample), function, str(n)],
                          capture_output=True, text=True, timeout=300)
    name = sample.rsplit("/", 1)[-1]
    return {int(line) for line in re.findall(rf"Graph break in user code at \S*{re.escape(name)}:(\d+)", proc.stderr)}


def breaks_json(*args):
    proc = run_cli("breaks", *args, "--json", "--budget", "0.05")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return {row["variant"]: row for row in json.loads(proc.stdout)["variants"]}


@pytest.fixture(scope="module")
def knapsack():
    return breaks_json("samples/knapsack_breaks.py", "-n", "3000", "--population-sizes", "2000")


@pytest.mark.parametrize("function, vid", [("fitness_numpy", "numpy-compiled-cpu"),
                                           ("fitness_torch", "torch-compiled-cpu")])
def test_lists_exactly_the_lines_torch_logs(knapsack, function, vid):
    expected = torch_reported_lines("samples/knapsack_breaks.py", function, 3000)
    assert expected  # the oracle saw breaks
    row = knapsack[vid]
    assert {b["line"] for b in row["breaks"]} == expected
    assert len(row["breaks"]) == len({(b["line"], b["reason"]) for b in row["breaks"]})  # each once
    for b in row["breaks"]:
        assert b["file"] == "samples/knapsack_breaks.py" and b["code"] and b["reason"] and b["fix"]
        assert b["explanation"] and b["gb_id"].startswith("gb") and b["url"].startswith("https://")
    assert len(row["graphs"]) >= 2 and all(g["op_count"] for g in row["graphs"])
    assert row["cost"]["outside_s"] >= 0 and 0 <= row["cost"]["outside_fraction"] <= 1


def test_config_flags_that_remove_a_break_are_tried(knapsack):
    source = (ROOT / "samples/knapsack_breaks.py").read_text().splitlines()
    item_line = next(i for i, s in enumerate(source, 1) if ".sum().item()" in s)
    (tried,) = knapsack["torch-compiled-cpu"]["tried"]
    assert tried["flag"] == "dynamo.capture_scalar_outputs=True" and tried["status"] == "ok"
    assert item_line in tried["gone"] and tried["breaks_after"] < tried["breaks_before"]
    assert tried["median_before_s"] > 0 and tried["median_after_s"] > 0


def test_population_sizes_report_recompiles_with_the_failed_guard(knapsack):
    recompiles = [w for w in knapsack["numpy-compiled-cpu"]["warnings"] if w["kind"] == "recompile"]
    assert recompiles and all("at population 2,000" in w["text"] for w in recompiles)
    assert any("size mismatch" in w["text"] and "expected 3000, actual 2000" in w["text"] for w in recompiles)


def test_apply_along_axis_break_that_explain_misses_is_listed():
    rows = breaks_json("samples/sum.py", "-v", "numpy_apply-compiled-cpu", "-n", "200")
    source = (ROOT / "samples/sum.py").read_text().splitlines()
    line = next(i for i, s in enumerate(source, 1) if "return np.apply_along_axis" in s)
    (b,) = rows["numpy_apply-compiled-cpu"]["breaks"]
    assert b["line"] == line and "numpy function unsupported" in b["reason"]
    assert "apply_along_axis" in b["fix"]


def test_unrolled_python_loops_are_flagged():
    rows = breaks_json("samples/penalty_loops.py", "-v", "torch-compiled-cpu", "-n", "2000")
    row = rows["torch-compiled-cpu"]
    assert not row["breaks"]  # an unrolled loop does not break the graph: the only signal is its size
    (w,) = [w for w in row["warnings"] if w["kind"] == "unrolled-loop"]
    source = (ROOT / "samples/penalty_loops.py").read_text().splitlines()
    loops = [i for i, s in enumerate(source, 1) if s.strip().startswith("for ") and i > w["lines"][0] - 1]
    assert w["lines"] == loops[:2] and "unrolled" in w["text"]


def test_exit_codes_fit_ci(tmp_path):
    broken = run_cli("breaks", "samples/sum.py", "-v", "numpy_apply-compiled-cpu", "-n", "100",
                     "--budget", "0.02", "--fail-on-break", "--no-try-fixes")
    assert broken.returncode == 3, broken.stderr
    assert "numpy function unsupported" in broken.stdout
    clean = run_cli("breaks", "samples/poly.py", "-v", "numpy-compiled-cpu", "-n", "2000", "--budget", "0.02",
                    "--fail-on-break")
    assert clean.returncode == 0, clean.stderr
    assert "no graph breaks" in clean.stdout
    (tmp_path / "bad.py").write_text("def population(n, rng):\n    return (\n")
    cannot = run_cli("breaks", tmp_path / "bad.py", "--fail-on-break")
    assert cannot.returncode == 2 and cannot.stderr.count("inspector: error:") == 1
    assert "Traceback" not in cannot.stderr
