"""Line verdicts, from checked-in probe output of every sample under torch 2.1.2 and 2.13."""

import json

import pytest

from conftest import VERSIONS, analysis, line_of, record_path, statuses
from inspector.analysis import analyze
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render.said import rewrite, said


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stem", ["poly", "trig"])
@pytest.mark.parametrize("vid", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_constraint_kernels_are_parallel_and_every_helper_line_too(version, stem, vid):
    a = analysis(version, stem)
    v = a.variant(vid)
    cpp = [k for k in v.code.kernels if k.backend == "cpp"]
    assert cpp and all(k.parallel for k in cpp)
    helper_lines = [e for e in v.code.lines if e.function != v.function and e.status]
    source = a.sample.source.splitlines()
    returns = [e for e in v.code.lines if e.function != v.function and source[e.line - 1].strip().startswith("return")]
    assert returns and all(e.status for e in returns)  # every helper's result is computed in a kernel
    for e in helper_lines:  # placed in the kernel's one loop nest (views, in 2.1, by the FX graph alone)
        assert e.status == "parallel" and e.kernels and e.nests, e
        assert "loop_nest" in e.how or (version == "2.1.2" and e.how == ["fx_graph"]), e
    # population stored (N, 3) row-major: under 2.13 strided loads keep SIMD off, and the report says why
    kinds = [{r.kind for r in e.why} for e in helper_lines]
    if version == "2.13.0":
        assert all(e.vectorized == "none" for e in helper_lines)
        assert all("not-vectorized-strided" in k for k in kinds)
    elif stem == "poly":  # 2.1's checker refused float64, GCC vectorized the scalar loop: the machine code decides
        assert all(e.vectorized == "all" for e in helper_lines)
        assert all({"inductor-scalar", "machine-disagrees"} <= k for k in kinds)
    else:  # trig's loop calls libm's sin and cos: GCC left it scalar too
        assert all(e.vectorized == "none" for e in helper_lines)
        assert all("not-vectorized-checker" in k and "machine-disagrees" not in k for k in kinds)
    assert not v.code.breaks


@pytest.mark.parametrize("version", VERSIONS)
def test_sum_compiled_kernels_are_reductions_vectorized_by_torch_2_13(version):
    a = analysis(version, "sum")
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        cpp = [k for k in a.variant(vid).code.kernels if k.backend == "cpp"]
        assert cpp and all(k.reduction and k.vectorized == (version == "2.13.0") for k in cpp), vid


@pytest.mark.parametrize("version", VERSIONS)
def test_apply_along_axis_break_is_on_its_line(version):
    a = analysis(version, "sum")
    v = a.variant("numpy_apply-compiled-cpu")
    line = line_of(a, "return np.apply_along_axis")
    assert [b.line for b in v.code.breaks] == [line]
    (b,) = v.code.breaks
    assert b.cause == "apply-along-axis" and "np.apply_along_axis" in (rewrite(b.usual) or "")
    assert any(e.line == line and e.status == "graph-break" for e in v.code.lines)


def test_knapsack_numpy_if_and_mask_break_matmul_is_a_library_call():
    a = analysis("2.13.0", "knapsack_breaks")
    s = statuses(a, "numpy-compiled-cpu")
    assert s["totals = population @ ITEMS"] == {"extern"}
    assert s["over = weight > CAPACITY"] == {"parallel"}
    assert s["if over.any():"] == {"graph-break"}
    assert s["fitness[over] -= PENALTY * (weight[over] - CAPACITY)"] == {"graph-break"}
    found = {b.line: b for b in a.variant("numpy-compiled-cpu").code.breaks}
    assert found[line_of(a, "if over.any():")].cause == "data-dependent-branch"
    mask = found[line_of(a, "fitness[over] -=")]
    assert mask.cause == "dynamic-shape" and "capture_dynamic_output_shape_ops" in mask.flag
    assert "np.where" in (rewrite(mask.usual) or "")
    assert any(r.kind == "library-call" and "extern_kernels.mm" in said(r)
               for e in a.variant("numpy-compiled-cpu").code.lines for r in e.why)


def test_knapsack_under_torch_2_1_generates_the_matmul_and_runs_the_mask_eagerly():
    """torch 2.1 lowers the (N, 30) @ (30, 2) product to a generated kernel and does not break at the boolean
    mask: after the `if` broke the graph, the rest of the frame ran as Python."""
    a = analysis("2.1.2", "knapsack_breaks")
    s = statuses(a, "numpy-compiled-cpu")
    assert s["totals = population @ ITEMS"] == {"parallel"}
    assert s["if over.any():"] == {"graph-break"}
    assert s["fitness[over] -= PENALTY * (weight[over] - CAPACITY)"] == {"eager"}
    assert [b.cause for b in a.variant("numpy-compiled-cpu").code.breaks] == ["data-dependent-branch"]


@pytest.mark.parametrize("version", VERSIONS)
def test_knapsack_torch_item_and_print_break_and_the_rest_stays_parallel(version):
    a = analysis(version, "knapsack_breaks")
    s = statuses(a, "torch-compiled-cpu")
    assert s["overweight = (excess > 0).sum().item()"] == {"graph-break"}
    assert s['print(f"knapsack: {overweight} of {len(population)} individuals overweight")'] == {"graph-break"}
    assert s["return value - PENALTY * excess"] == {"parallel"}
    causes = {b.line: b.cause for b in a.variant("torch-compiled-cpu").code.breaks}
    assert causes[line_of(a, "(excess > 0).sum().item()")] == "item"
    assert causes[line_of(a, "print(f")] == "print"


def test_apply_along_axis_row_function_runs_serial_and_eager():
    a = analysis("2.13.0", "penalty_loops")
    s = statuses(a, "numpy_apply-compiled-cpu")
    assert s["return np.apply_along_axis(row_fitness, 1, population)"] == {"graph-break"}
    assert s["if violation > MAX_VIOLATION:"] == {"graph-break"}
    assert s["return -np.inf"] == {"eager"}
    assert s["return -(cost + PENALTY * violation)"] == {"serial"}
    serial = [said(r) for e in a.variant("numpy_apply-compiled-cpu").code.lines if e.status == "serial"
              for r in e.why if r.kind == "serial"]
    assert serial and all("cpp.min_chunk_size" in w or "has no loop" in w for w in serial)
    assert any("Inductor's parallel-depth decision (recorded): its loops cover 10 elements, 5 per thread, under "
               "cpp.min_chunk_size = 512 per thread (2 threads)" in w for w in serial)


def test_under_torch_2_1_the_apply_along_axis_row_function_is_not_compiled():
    """torch 2.1 skips a frame that holds no torch objects unless it was given to torch.compile: the row
    function, called by NumPy with a NumPy row, runs as Python."""
    s = statuses(analysis("2.1.2", "penalty_loops"), "numpy_apply-compiled-cpu")
    assert s.pop("return np.apply_along_axis(row_fitness, 1, population)") == {"graph-break"}
    assert set().union(*s.values()) == {"eager"}


@pytest.mark.parametrize("version", VERSIONS)
def test_the_vectorised_constraints_are_parallel_wherever_they_have_operations(version):
    s = statuses(analysis(version, "penalty_loops"), "numpy-compiled-cpu")
    assert s["violation += np.maximum(excess, 0) ** 2"] == {"parallel"}
    assert set().union(*s.values()) == {"parallel", None}


def test_matmul_is_extern_between_parallel_lines_and_nan_check_breaks():
    s = statuses(analysis("2.13.0", "matmul_fitness"), "torch-compiled-cpu")
    assert s["outputs = torch.tanh(scaled @ weights.T + bias)"] == {"extern"}
    assert s["loss = ((outputs - TARGETS_TORCH[:, None]) ** 2).mean(dim=0)"] == {"parallel"}
    assert s["if torch.isnan(loss).any():"] == {"graph-break"}
    assert s["return -loss"] == {"parallel"}


def test_under_torch_2_1_the_64_row_standardisation_is_serial_below_its_minimum_chunk():
    a = analysis("2.1.2", "matmul_fitness")
    line = line_of(a, "scaled = (DATA_TORCH")
    (e,) = [e for e in a.variant("torch-compiled-cpu").code.lines if e.line == line]
    assert e.status == "serial"
    assert any("parallel-depth decision (recorded): its loops cover 512 elements, 256 per thread, under "
               "cpp.min_chunk_size = 4096 per thread" in said(r) for r in e.why)
    assert statuses(a, "torch-compiled-cpu")["if torch.isnan(loss).any():"] == {"graph-break"}


def test_triton_preview_lines_are_parallel_with_their_load_notes():
    a = analysis("2.13.0", "poly")
    for vid in ("numpy-triton-preview", "torch-triton-preview"):
        v = a.variant(vid)
        assert v.status == "ok" and v.preview and v.device == "cpu (Triton preview)"
        assert v.timing is None and v.check.matches is None  # never timed, never cross-checked
        (k,) = v.code.kernels  # the whole fitness fuses into one pointwise kernel
        assert k.backend == "triton" and k.kind == "pointwise" and k.parallel
        for text in ("@triton.jit", "tl.load(", "tl.where(", "tl.program_id(0)"):
            assert text in k.code, text
        assert k.triton.target == "cpu" and k.triton.numels == {"xnumel": 20000}
        assert k.masked_loads == k.loads == 3
        # the (N, 3) row-major population: each gene is read every 3rd element, uncoalesced on a GPU
        assert k.strided_loads == ["in_ptr0 + (1 + 3*x0)", "in_ptr0 + (2 + 3*x0)", "in_ptr0 + (3*x0)"]
        assert {"Triton grid (program_id)", "strided load", "tl.where"} <= {e.what for e in k.evidence}
        helper = [e for e in v.code.lines if e.function.startswith("check_constraints")]
        assert helper and all(e.status == "parallel" and e.vectorized == "n/a" for e in helper)
        assert all("provenance" in e.how and k.id in e.kernels for e in helper)
        assert all(any(r.kind == "triton-loads" and "strided loads" in said(r) for r in e.why) for e in helper)


def test_stacks_replayed_from_the_cache_of_another_checkout_still_map(tmp_path):
    """Inductor's cache replays provenance stacks with the path of the process that first compiled the graph;
    a clone in another folder (CI) must get the same verdicts, and another file's stacks must not count."""
    raw = record_path("2.13.0", "poly").read_text()
    base = analysis("2.13.0", "poly")
    verdicts = [(e.line, e.status, e.how) for v in base.variants for e in v.code.lines]
    assert any("provenance" in how for _, _, how in verdicts)  # the premise: the record has provenance
    record = json.loads(raw)
    real = record["sample"]["file"]
    for v in record["variants"]:
        for g in (v.get("capture") or {}).get("graphs") or []:
            g["kernel_stack_traces"] = {k: [s.replace(real, "/elsewhere/checkout/samples/poly.py") for s in stacks]
                                        for k, stacks in (g.get("kernel_stack_traces") or {}).items()}
    stacks = [s for v in record["variants"] for g in (v.get("capture") or {}).get("graphs") or []
              for traces in (g.get("kernel_stack_traces") or {}).values() for s in traces]
    assert stacks and all(real not in s for s in stacks) and any("/elsewhere/" in s for s in stacks)
    moved = json.dumps(record)
    again = analyze(RawRecord.from_json(json.loads(moved)))
    assert [(e.line, e.status, e.how) for v in again.variants for e in v.code.lines] == verdicts
    other = json.loads(moved.replace("checkout/samples/poly.py", "checkout/samples/other.py"))
    compiled = [v for v in analyze(RawRecord.from_json(other)).variants if v.code.lines]
    assert compiled and not any("provenance" in e.how for v in compiled for e in v.code.lines)


def test_schema_1_record_gives_the_verdicts_inspector_0_1_derived():
    """A record written by inspector 0.1 (schema 1) kept its own analysis beside the raw facts: today's analysis
    of the same raw facts must agree with it line by line."""
    path = record_path("2.13.0", "knapsack_breaks").parent.parent.parent / "schema-1" / "knapsack_breaks.json"
    old = json.loads(path.read_text())
    new = analyze(load(path))
    for v_old in old["variants"]:
        v = new.variant(v_old["id"])
        assert [(e["line"], e["status"], e["vectorized"], sorted(e["kernels"]), e["how"]) for e in v_old["lines"]] == [
            (e.line, e.status, e.vectorized, sorted(e.kernels), e.how) for e in v.code.lines], v.id
        assert [(b["line"], b["reason"], b["count"]) for b in v_old["graph_breaks"]] == [
            (b.line, b.reason, b.count) for b in v.code.breaks]
        assert v_old["speedup_vs_numpy"] == pytest.approx(v.speedups.vs_numpy)
        for k_old in v_old["kernels"]:
            k = next(k for k in v.code.kernels if k.id == k_old["id"])
            assert (k.backend, k.parallel, k.vectorized, k.strided_loads) == (
                k_old["backend"], k_old["parallel"], k_old["vectorized"], k_old["strided_loads"])
            assert k.cost.time_s == k_old.get("time_s") and k.cost.read_bytes == k_old.get("read_bytes")
    assert [p["population"] for p in old["sweep"]] == [p.population for p in new.sweep]
    for p_old, p in zip(old["sweep"], new.sweep):
        for v_old, v in zip(p_old["variants"], p.variants):
            assert v_old["speedup_vs_numpy"] == pytest.approx(v.speedups.vs_numpy)
            assert (v_old["timing"] or {}).get("compile_s") == pytest.approx(v.timing.compile_s if v.timing else None)


def _verdicts(a, vid):
    """{stripped source line: (status, vectorized)} of one compiled variant (a line's first verdict)."""
    source = a.sample.source.splitlines()
    found = {}
    for e in a.variant(vid).code.lines:
        found.setdefault(source[e.line - 1].strip(), (e.status, e.vectorized))
    return found


@pytest.mark.parametrize("vid", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_ten_genes_constraints_run_in_a_scalar_nest_and_the_penalty_sum_vectorized(vid):
    """One kernel, three loop nests (torch 2.13): the objective and the eight constraints in a scalar loop
    (strided column loads), the penalty sum in a vectorized reduction, the final add in a vectorized loop."""
    a = analysis("2.13.0", "ten_genes")
    v = a.variant(vid)
    (k,) = v.code.kernels
    assert [n.describe() for n in k.loop_nests] == ["parallel, scalar loop", "parallel, vectorized reduction",
                                                    "parallel, vectorized loop"]
    s = _verdicts(a, vid)
    for g in range(1, 9):
        line = next(text for text in s if text.startswith(f"g{g} = "))
        assert s[line] == ("parallel", "none"), line
    penalty = next(text for text in s if text.startswith("penalty = "))
    assert s[penalty] == ("parallel", "all")
    by_line = {e.line: e for e in v.code.lines}
    e = by_line[line_of(a, penalty)]
    assert e.nests == [f"{k.id}#2"] and "loop_nest" in e.how
    # the objective: most terms in the scalar nest, its last term and the final add in the vectorized one
    objective = by_line[line_of(a, "return (x0**2 + x1**2")]
    assert (objective.status, objective.vectorized) == ("parallel", "some")
    assert objective.nests == [f"{k.id}#1", f"{k.id}#3"]
    (split,) = [r for r in objective.why if r.kind == "split-nests"]
    assert "nest 1 (parallel, scalar loop)" in said(split) and "nest 3 (parallel, vectorized loop)" in said(split)
    assert any(r.kind == "not-vectorized-strided" for r in objective.why)
    # and why those are two loops, in the scheduler's words: nodes of nest 1 and nest 3 it did not fuse
    (unfused,) = [r for r in objective.why if r.kind == "not-fused"]
    assert said(unfused).startswith(f"nests 1 and 3 of {k.name} are separate loops: Inductor's scheduler did not fuse")
    assert "intermediate nodes between node1 & node2" in said(unfused)
    assert not any(r.kind == "not-fused" for r in by_line[line_of(a, penalty)].why)  # one nest: nothing to explain


def test_torch_2_1_gives_no_fusion_reasons_and_none_is_made_up():
    raw = next(v for v in json.loads(record_path("2.1.2", "ten_genes").read_text())["variants"]
               if v["id"] == "numpy-compiled-cpu")
    graphs = raw["capture"]["graphs"]
    assert graphs and all(g.get("nests") and not g.get("fusion") for g in graphs)
    v = analysis("2.1.2", "ten_genes").variant("numpy-compiled-cpu")
    assert any(len(e.nests) > 1 for e in v.code.lines)  # split lines, as in 2.13, with no reason to give
    assert [r for e in v.code.lines for r in e.why if r.kind == "not-fused"] == []


def test_without_nest_records_a_line_in_differing_nests_is_unknown_not_the_kernels_verdict():
    """As a probe that could not hook the C++ backend would leave it: only kernel-level provenance. The kernel's
    nests differ, so no line may inherit "vectorized" or "scalar" from the kernel."""
    record = json.loads(record_path("2.13.0", "ten_genes").read_text())
    for v in record["variants"]:
        for g in (v.get("capture") or {}).get("graphs") or []:
            g.pop("nests", None)
    v = analyze(RawRecord.from_json(record)).variant("numpy-compiled-cpu")
    lines = [e for e in v.code.lines if e.status]
    assert lines and all((e.status, e.vectorized) == ("parallel", "unknown") for e in lines)
    assert all(e.how == ["provenance"] and e.nests == [] for e in lines)
    (reason,) = [r for r in lines[0].why if r.kind == "nest-unknown"]
    assert said(reason).startswith("nest unknown: the evidence places it in cpp_fused_")
    assert "nest 1: parallel, scalar loop; " in said(reason)


def test_a_kernel_launched_twice_is_one_kernel_with_two_launches_and_its_time():
    a = analysis("2.13.0", "hidden_layers")
    v = a.variant("torch-compiled-cpu")
    tanh = [k for k in v.code.kernels if k.name.startswith("cpp_fused_tanh")]
    (k,) = tanh
    assert [launch.position for launch in k.launches] == [1, 3]
    assert k.cost.launches_per_call == 2 and k.cost.time_s > 0
    extern = [k for k in v.code.kernels if k.backend == "extern"]
    assert [(k.name, len(k.launches)) for k in extern] == [("extern_kernels.bmm", 3)]
    assert not v.code.time_split.unmatched
    layers = [line_of(a, "h1 = torch.tanh("), line_of(a, "h2 = torch.tanh(")]
    assert [k.id in e.kernels for e in v.code.lines if e.line in layers] == [True, True]


def test_torch_2_1_generates_the_same_tanh_twice_under_two_names():
    a = analysis("2.1.2", "hidden_layers")
    v = a.variant("torch-compiled-cpu")
    tanh = [k for k in v.code.kernels if k.name.startswith("cpp_fused_tanh")]
    assert [len(k.launches) for k in tanh] == [1, 1]
    assert tanh[0].code.replace(tanh[0].name, "") == tanh[1].code.replace(tanh[1].name, "")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_torch_variant_lowering_to_the_numpy_variants_graph_gets_its_own_lines(version):
    """sum.py's NumPy and torch variants lower to the same graph; capture never replays another compile's stacks."""
    a = analysis(version, "sum")
    for vid, text in (("numpy-compiled-cpu", "return np.sum(population, axis=1)"),
                      ("torch-compiled-cpu", "return torch.sum(population, dim=1)")):
        (e,) = [e for e in a.variant(vid).code.lines if e.line == line_of(a, text)]
        assert e.status == "parallel" and e.kernels, vid


@pytest.mark.parametrize("version", VERSIONS)
def test_view_lines_get_the_verdict_of_the_loops_their_loads_feed(version):
    """`x = solutions[:, 0]` has no operation of its own; under both torch versions it is placed in the nest that
    reads the column (torch 2.1's provenance would have left it without a verdict)."""
    a = analysis(version, "poly")
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        views = [e for e in a.variant(vid).code.lines if a.sample.source.splitlines()[e.line - 1].strip().startswith(
            ("x = solutions[:, 0]", "y = solutions[:, 1]", "z = solutions[:, 2]"))]
        assert len(views) >= 6 and all(e.status == "parallel" and e.nests for e in views), vid
