"""Line verdicts on the samples whose constraint logic does not all parallelize (real compiles)."""

import json

import pytest

from conftest import run_cli, variant


def report(tmp_path_factory, stem, population, *variants):
    out = tmp_path_factory.mktemp(stem)
    args = ["report", f"samples/{stem}.py", "--population", population, "--budget", "0.05", "-o", out]
    for v in variants:
        args += ["--variant", v]
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / f"{stem}.json").read_text())


def statuses(record, vid):
    """{stripped source line: set of statuses} for one compiled variant."""
    source = record["sample"]["source"].splitlines()
    found = {}
    for e in variant(record, vid)["lines"]:
        found.setdefault(source[e["line"] - 1].strip(), set()).add(e["status"])
    return found


def line_of(record, text):
    return next(i for i, s in enumerate(record["sample"]["source"].splitlines(), 1) if text in s)


@pytest.fixture(scope="module")
def knapsack(tmp_path_factory):
    return report(tmp_path_factory, "knapsack_breaks", 3000, "numpy", "numpy-compiled-cpu", "torch",
                  "torch-compiled-cpu")


@pytest.fixture(scope="module")
def penalty(tmp_path_factory):
    return report(tmp_path_factory, "penalty_loops", 3000, "numpy", "numpy-compiled-cpu",
                  "numpy_apply-compiled-cpu")


@pytest.fixture(scope="module")
def matmul(tmp_path_factory):
    return report(tmp_path_factory, "matmul_fitness", 3000, "torch", "torch-compiled-cpu")


def test_knapsack_numpy_if_and_mask_break_matmul_is_a_library_call(knapsack):
    s = statuses(knapsack, "numpy-compiled-cpu")
    assert s["totals = population @ ITEMS"] == {"extern"}
    assert s["over = weight > CAPACITY"] == {"parallel"}
    assert s["if over.any():"] == {"graph-break"}
    assert s["fitness[over] -= PENALTY * (weight[over] - CAPACITY)"] == {"graph-break"}
    breaks = {b["line"]: b for b in variant(knapsack, "numpy-compiled-cpu")["graph_breaks"]}
    assert breaks[line_of(knapsack, "if over.any():")]["reason"] == "Data-dependent branching"
    mask = breaks[line_of(knapsack, "fitness[over] -=")]
    assert "Dynamic shape operator" in mask["reason"] and "capture_dynamic_output_shape_ops" in mask["fix"]
    assert any(w.startswith("ran as a library call: extern_kernels.mm")
               for e in variant(knapsack, "numpy-compiled-cpu")["lines"] for w in e["why"])


def test_knapsack_torch_item_and_print_break_and_the_rest_stays_parallel(knapsack):
    s = statuses(knapsack, "torch-compiled-cpu")
    assert s["overweight = (excess > 0).sum().item()"] == {"graph-break"}
    assert s['print(f"knapsack: {overweight} of {len(population)} individuals overweight")'] == {"graph-break"}
    assert s["return value - PENALTY * excess"] == {"parallel"}
    reasons = {b["line"]: b["reason"] for b in variant(knapsack, "torch-compiled-cpu")["graph_breaks"]}
    assert "item()" in reasons[line_of(knapsack, "(excess > 0).sum().item()")]
    assert "builtin operator" in reasons[line_of(knapsack, "print(f")]
    assert variant(knapsack, "torch-compiled-cpu")["matches_reference"] is True


def test_apply_along_axis_breaks_and_the_row_function_runs_serial_and_eager(penalty):
    s = statuses(penalty, "numpy_apply-compiled-cpu")
    assert s["return np.apply_along_axis(row_fitness, 1, population)"] == {"graph-break"}
    assert s["if violation > MAX_VIOLATION:"] == {"graph-break"}
    assert s["return -np.inf"] == {"eager"}
    assert s["return -(cost + PENALTY * violation)"] == {"serial"}
    row = [e for e in variant(penalty, "numpy_apply-compiled-cpu")["lines"] if e["status"] == "serial"]
    assert all("minimum chunk" in " ".join(e["why"]) or "has no loop" in " ".join(e["why"]) for e in row)
    assert any("minimum chunk" in " ".join(e["why"]) for e in row)
    # the vectorised form of the same constraints is parallel everywhere it has operations
    vectorised = statuses(penalty, "numpy-compiled-cpu")
    assert vectorised["violation += np.maximum(excess, 0) ** 2"] == {"parallel"}
    assert {"graph-break", "eager", "serial", "extern"}.isdisjoint(set().union(*vectorised.values()))


def test_matmul_is_extern_between_parallel_lines_and_nan_check_breaks(matmul):
    s = statuses(matmul, "torch-compiled-cpu")
    assert s["outputs = torch.tanh(scaled @ weights.T + bias)"] == {"extern"}
    assert s["loss = ((outputs - TARGETS_TORCH[:, None]) ** 2).mean(dim=0)"] == {"parallel"}
    assert s["if torch.isnan(loss).any():"] == {"graph-break"}
    assert s["return -loss"] == {"parallel"}
