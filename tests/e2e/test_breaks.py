"""`inspector breaks` through the CLI, on real compiles, against torch's own graph-break log."""

import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli, valid_json

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


@pytest.fixture(scope="module")
def knapsack():
    """`inspector breaks` of the knapsack sample for CI: JSON, exit 3 on a break, a recompile at another size."""
    proc = run_cli("breaks", "samples/knapsack_breaks.py", "-n", "3000", "--population-sizes", "2000", "--json",
                   "--fail-on-break", "--budget", "0.05", "--no-rewrites")
    return proc, {row["variant"]: row for row in valid_json(proc.stdout)["variants"]}


def test_lists_exactly_the_lines_torch_logs_and_exits_3_for_ci(knapsack):
    proc, rows = knapsack
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    expected = torch_reported_lines("samples/knapsack_breaks.py", "fitness_numpy", 3000)
    assert expected  # the oracle saw breaks
    row = rows["numpy-compiled-cpu"]
    assert {b["line"] for b in row["breaks"]} == expected
    for b in row["breaks"]:
        assert b["file"] == "samples/knapsack_breaks.py" and b["code"] and b["reason"] and b["fix"]
        assert b["explanation"] and b["gb_id"].startswith("gb") and b["url"].startswith("https://")
    assert len(row["graphs"]) >= 2 and row["cost"]["outside_s"] >= 0


def test_breaks_stream_as_soon_as_the_first_call_compiled(knapsack):
    proc, rows = knapsack
    lines = proc.stderr.splitlines()
    streamed = [i for i, s in enumerate(lines) if "numpy-compiled-cpu: graph break at samples/knapsack_breaks.py:" in s]
    done = next(i for i, s in enumerate(lines) if re.match(r"\s*\[\d+\] numpy-compiled-cpu ", s))
    assert streamed and max(streamed) < done  # said before the variant's timing and profiling ended
    said = {int(re.search(r"knapsack_breaks\.py:(\d+)", lines[i]).group(1)) for i in streamed}
    assert said == {b["line"] for b in rows["numpy-compiled-cpu"]["breaks"]}


def test_config_flags_that_remove_a_break_are_tried(knapsack):
    _, rows = knapsack
    source = (ROOT / "samples/knapsack_breaks.py").read_text().splitlines()
    item_line = next(i for i, s in enumerate(source, 1) if ".sum().item()" in s)
    tried = {t["spec"]["config"][0]: t for t in rows["torch-compiled-cpu"]["tried"] if t["kind"] == "flag"}
    t = tried["dynamo.capture_scalar_outputs=True"]
    effect = t["effect"]
    assert t["status"] == "ok" and item_line in effect["gone"] and effect["breaks_after"] < effect["breaks_before"]
    assert t["median_before_s"] > 0 and t["median_after_s"] > 0


def test_population_sizes_report_recompiles_with_the_failed_guard(knapsack):
    _, rows = knapsack
    recompiles = [w for w in rows["numpy-compiled-cpu"]["warnings"] if w["kind"] == "recompile"]
    assert recompiles and all("at population 2,000" in w["text"] for w in recompiles)
    assert any("size mismatch" in w["text"] and "expected 3000, actual 2000" in w["text"] for w in recompiles)
    # where a size recompiled, dynamic=False and dynamic=True are tried at the same sizes and compared there: static
    # shapes compile again at the new size, dynamic shapes do not (torch's own count of its compiles)
    tried = {t["kind"]: t for t in rows["numpy-compiled-cpu"]["tried"] if t["kind"] in ("static", "dynamic")}
    for kind, name, dynamic in (("static", "dynamic-false", False), ("dynamic", "dynamic-true", True)):
        t = tried[kind]
        assert t["status"] == "ok" and t["matches"] is True, t
        assert t["spec"]["name"] == name and t["spec"]["compile_options"] == {"dynamic": dynamic}
        (size,) = t["sizes"]
        assert size["population"] == 2000 and size["steady_before_s"] > 0 and size["steady_after_s"] > 0
        assert size["first_before_s"] > size["steady_before_s"] and size["first_after_s"] > 0
        assert size["steady_calls"] > 1  # each side's steady call at the size, a median
        assert t["speedup"] == pytest.approx(size["steady_before_s"] / size["steady_after_s"])
        assert (size["recompiles_after"] == 0) == dynamic, size


def test_a_clean_sample_exits_0_and_a_broken_one_2(tmp_path):
    clean = run_cli("breaks", "samples/poly.py", "-v", "numpy-compiled-cpu", "-n", "2000", "--budget", "0.02",
                    "--fail-on-break", "--no-rewrites", "--no-try-fixes")
    assert clean.returncode == 0, clean.stderr
    assert "no graph breaks" in clean.stdout
    (tmp_path / "bad.py").write_text("def population(n, rng):\n    return (\n")
    cannot = run_cli("breaks", tmp_path / "bad.py", "--fail-on-break")
    assert cannot.returncode == 2 and cannot.stderr.count("inspector: error:") == 1
    assert "Traceback" not in cannot.stderr
