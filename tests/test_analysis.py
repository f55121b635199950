"""Sample loader, variant matrix, kernel splitter and record, on real samples and real captured code."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, variant
from inspector.analysis import analyze, kernels
from inspector.probe import sample
from inspector.record import RecordError, load, save


def test_loader_reads_the_contract():
    module = sample.load(str(ROOT / "samples/trig.py"))
    info = sample.describe(module)
    assert info["title"] == "Constrained trigonometric function: the blog's third example"
    assert info["description"].startswith("Minimise f(x, y, z) = sin(x)")
    assert info["default_population"] == 900_000
    assert sample.functions(module) == [("fitness_python", "python"), ("fitness_numpy", "numpy"),
                                        ("fitness_torch", "torch")]


def test_variant_matrix():
    module = sample.load(str(ROOT / "samples/sum.py"))
    ids = [v.id for v in sample.variants(module)]
    assert ids == ["python", "numpy_apply", "numpy_apply-compiled-cpu", "numpy_apply-compiled-cuda",
                   "numpy", "numpy-compiled-cpu", "numpy-compiled-cuda",
                   "torch", "torch-compiled-cpu", "torch-compiled-cuda"]
    by_id = {v.id: v for v in sample.variants(module)}
    assert by_id["torch-compiled-cuda"].device == "cuda" and by_id["torch-compiled-cuda"].compiled
    assert by_id["numpy_apply"].function == "fitness_numpy_apply" and not by_id["numpy_apply"].compiled


def test_splitter_on_real_output_code(blog_reports):
    _, record, _, _ = blog_reports["poly"]
    v = variant(record, "numpy-compiled-cpu")
    (code,) = v["capture"]["graphs"][0]["output_code"]
    split = kernels.split(code)
    assert split["understood"]
    (k,) = split["kernels"]
    assert k["name"].startswith("cpp_fused_") and k["backend"] == "cpp" and k["launch"] == 0
    assert k["parallel"] and k["parallel_regions"] >= 1 and not k["vectorized"]
    assert k["code"].lstrip().startswith("#include") and k["code"] in code
    assert k["strided_loads"] and all("3L*x0" in s for s in k["strided_loads"])
    evidence_lines = k["code"].splitlines()
    assert any("#pragma omp parallel" in evidence_lines[e["line"] - 1] for e in k["evidence"])
    assert k["handle"] and k["handle"].startswith(k["name"] + ":")


def test_reduction_kernel_on_real_output_code(blog_reports):
    _, record, _, _ = blog_reports["sum"]
    code = variant(record, "torch-compiled-cpu")["capture"]["graphs"][0]["output_code"][0]
    (k,) = kernels.split(code)["kernels"]
    assert k["reduction"] and k["vectorized"] and k["kind"] == "reduction"
    assert any(e["what"] == "vector instruction" for e in k["evidence"])


def test_record_round_trip_and_reanalysis(blog_reports, tmp_path):
    _, record, _, _ = blog_reports["trig"]
    save(record, tmp_path / "r.json")
    again = analyze(load(tmp_path / "r.json"))
    assert [v["lines"] for v in again["variants"]] == [v["lines"] for v in record["variants"]]
    assert not list(tmp_path.glob(".r.json.*"))  # the temporary file was renamed away


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    (json.dumps({"a": 1}), "not an inspector record"),
    (json.dumps({"schema": "inspector.record/99", "sample": {}, "env": {}, "variants": []}), "is not"),
])
def test_record_errors_are_one_line(tmp_path, content, message):
    (tmp_path / "bad.json").write_text(content)
    with pytest.raises(RecordError, match=message) as info:
        load(tmp_path / "bad.json")
    assert "\n" not in str(info.value)


FRAGMENTS = ["k0 = async_compile.cpp_pybinding(['const double*'], r\'\'\'\n", "k1 = async_compile.cpp(\'\'\'",
             "t0 = async_compile.triton('t0', \'\'\'\n", "@triton_heuristics.pointwise\n", "\'\'\')\n",
             "#pragma omp parallel\n", "#pragma omp for\n", "for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(9L);",
             "auto tmp0 = in_ptr0[static_cast<int64_t>(3L*x0)];\n", "at::vec::Vectorized<float>::loadu(", "tmp_acc0_arr[tid]",
             "def call(args):\n", "    k0(a, b)\n", "    t0.run(a, stream=s)\n", "    extern_kernels.mm(a, b, out=c)\n",
             "    # [Provenance debug handles] k0:1\n", "class Runner:\n", "  ", "\n", "(", ")", "'", "x", "=", ":"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_splitter_never_crashes_on_malformed_code(text):
    split = kernels.split(text)
    assert isinstance(split["kernels"], list)
    assert split["understood"] or split["problem"]
    for k in split["kernels"]:
        assert k["backend"] in ("cpp", "triton", "extern") and isinstance(k["parallel"], (bool, type(None)))


def test_splitter_reads_future_shapes_as_not_understood():
    split = kernels.split("def call(args):\n    mystery_kernel_v9(args)\n")
    assert split["understood"] and split["kernels"] == []
    assert kernels.split("%%% not python")["understood"] is False


FIXTURES = ROOT / "tests" / "fixtures"


@pytest.mark.parametrize("version", ["torch-2.1.2", "torch-2.13.0"])
@pytest.mark.parametrize("variant_id", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_splitter_reads_output_code_captured_under_each_torch(version, variant_id):
    split = kernels.split((FIXTURES / version / f"poly-{variant_id}.py").read_text())
    (k,) = split["kernels"]
    assert split["understood"] and k["backend"] == "cpp" and k["parallel"] and not k["vectorized"]
    assert k["trip_counts"] == [20000]
    # 2.1 indexes with `long i0` and brackets, 2.13 with `int64_t x0`: both are strided loads
    assert k["strided_loads"] and all("3L*" in s for s in k["strided_loads"])


def test_graph_break_in_the_torch_2_1_format():
    from inspector.analysis import breaks
    b = breaks.parse({"text": (FIXTURES / "torch-2.1.2" / "graph-break.txt").read_text(), "mechanism": "logger"})
    assert b["file"].endswith("graph_break.py") and b["line"] == 12
    assert b["reason"].startswith("generic_jump") and "from user code" not in b["reason"]
    assert b["fix"] and "where" in b["fix"]


def test_stacks_replayed_from_the_cache_of_another_checkout_still_map(blog_reports):
    """Inductor's cache replays provenance stacks with the path of the process that first compiled the
    graph; a clone in another folder (CI) must get the same verdicts."""
    _, record, _, _ = blog_reports["poly"]
    moved = json.loads(json.dumps(record))
    real = record["sample"]["file"]
    for v in moved["variants"]:
        for g in (v.get("capture") or {}).get("graphs") or []:
            g["kernel_stack_traces"] = {k: [s.replace(real, "/elsewhere/checkout/samples/poly.py") for s in stacks]
                                        for k, stacks in (g.get("kernel_stack_traces") or {}).items()}
    analyze(moved)
    assert [v["lines"] for v in moved["variants"]] == [v["lines"] for v in record["variants"]]
    # stacks of another file (another name) are not the sample's: no provenance evidence from them
    other = json.loads(json.dumps(moved))
    for v in other["variants"]:
        for g in (v.get("capture") or {}).get("graphs") or []:
            g["kernel_stack_traces"] = {k: [s.replace("samples/poly.py", "samples/other.py") for s in stacks]
                                        for k, stacks in (g.get("kernel_stack_traces") or {}).items()}
    analyze(other)
    compiled = [v for v in other["variants"] if v["lines"]]
    assert compiled and not any("provenance" in e["how"] for v in compiled for e in v["lines"])
