"""Where the time goes: per-kernel times joined to real compiles, bytes and bandwidth, compile phases, sweeps."""

import json
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, variant
from inspector.analysis import cost, kernels

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.mark.parametrize("stem", ["trig", "sum"])
def test_profiled_kernels_are_the_captured_kernels_with_their_times(blog_reports, stem):
    _, record, html, _ = blog_reports[stem]
    bandwidth = record["env"]["memory_bandwidth"]
    assert bandwidth["gb_s"] > 0 and bandwidth["bytes"] > 0
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        v = variant(record, vid)
        names = {k["name"] for k in v["kernels"] if k["backend"] == "cpp"}
        profiled = {e["name"] for e in v["kernel_times"]["events"]}
        assert profiled == names, (vid, profiled, names)  # graph_<N>_ prefix stripped, same names
        split = v["time_split"]
        assert not split["unmatched"]
        assert 0 < split["kernels_s"] <= split["total_s"]
        for k in v["kernels"]:
            assert k["time_s"] > 0 and k["launches"] == 1 and 0 < k["time_share"] <= 1
            # the population's bytes in, one float64 / int64 per individual out
            n, genes, itemsize = (record["sample"]["shape"] + [1])[:2] + [1 if stem == "sum" else 8]
            assert (k["read_bytes"], k["written_bytes"]) == (n * genes * itemsize, n * 8)
            assert k["gb_s"] > 0 and k["bandwidth_fraction"] == pytest.approx(k["gb_s"] / bandwidth["gb_s"])
        lines = [e for e in v["lines"] if e["kernels"]]
        assert all(e["time_share"] > 0 for e in lines) and (lines or stem == "sum")
        phases = v["compile_phases"]
        assert phases["total_s"] == pytest.approx(v["timing"]["compile_s"])
        assert all(phases[k] >= 0 for k in ("dynamo_s", "aot_s", "inductor_s", "codegen_s", "build_s"))
        assert sum(phases["cache"].values()) == len(v["graphs"])
    assert "Where the time goes" in html and "GB/s" in html and 'class="phases"' in html and 'class="ht"' in html


def test_many_launches_and_the_time_outside_graphs_of_a_graph_break(blog_reports):
    _, record, _, _ = blog_reports["sum"]
    v = variant(record, "numpy_apply-compiled-cpu")
    (k,) = [k for k in v["kernels"] if k["time_s"]]
    assert k["launches"] == record["sample"]["population"]  # one compiled row_sum per individual
    assert (k["read_bytes"], k["written_bytes"]) == (1000, 8)
    split = v["time_split"]
    assert split["outside_graphs_s"] > split["kernels_s"]
    eager = [e for e in v["lines"] if e["status"] == "graph-break"]
    assert eager and all(e["time_s"] == split["outside_graphs_s"] for e in eager)


@pytest.mark.parametrize("version", ["torch-2.1.2", "torch-2.13.0"])
def test_bytes_from_the_wrapper_under_each_torch(version):
    code = (FIXTURES / version / "poly-numpy-compiled-cpu.py").read_text()
    (k,) = kernels.split(code)["kernels"]
    assert cost.traffic(code, {k["name"]: k}) == {k["name"]: (20000 * 3 * 8, 20000 * 8)}


def test_triton_kernel_bytes_from_its_signature():
    code = '''
triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', """
@triton_heuristics.pointwise(size_hints={'x': 1024}, triton_meta={'signature': {'in_ptr0': '*fp64', 'out_ptr0': '*i1', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}})
@triton.jit
def triton_poi_fused_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
""")
def call(args):
    arg0_1, = args
    assert_size_stride(arg0_1, (1000, 3), (3, 1))
    buf0 = empty_strided_cuda((1000, ), (1, ), torch.bool)
    triton_poi_fused_0.run(arg0_1, buf0, 1000, stream=stream0)
    return (buf0, )
'''
    (k,) = kernels.split(code)["kernels"]
    assert cost.traffic(code, {k["name"]: k}) == {k["name"]: (24000, 1000)}


def test_a_population_sweep_plots_speedup_against_size(tmp_path):
    proc = run_cli("report", "samples/trig.py", "-n", "1000,3000", "--budget", "0.05", "-v", "numpy",
                   "-v", "numpy-compiled-cpu", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((tmp_path / "trig.json").read_text())
    assert record["sample"]["population"] == 3000  # the report is made at the last size
    assert [s["population"] for s in record["sweep"]] == [1000, 3000]
    for size in record["sweep"]:
        v = next(v for v in size["variants"] if v["id"] == "numpy-compiled-cpu")
        assert v["timing"]["median_s"] > 0 and v["speedup_vs_numpy"] > 0
    assert variant(record, "numpy-compiled-cpu")["time_split"]["kernels_s"] > 0
    html = (tmp_path / "trig.html").read_text()
    assert "Speedup against population size" in html and html.count("<polyline") == 1
    bad = run_cli("report", "samples/trig.py", "-n", "1000,x", "-o", tmp_path)
    assert bad.returncode == 2 and "expected positive integers" in bad.stderr


def test_the_profiled_pass_wraps_the_timed_kernels_and_puts_them_back():
    torch = pytest.importorskip("torch")
    from inspector.probe import profile
    from inspector.probe.capture import Capture

    capture = Capture()
    capture.install()
    try:
        compiled = torch.compile(lambda x: (x.sin() + 1).sum(dim=1))
        x = torch.ones(64, 8, dtype=torch.float64)
        compiled(x)
        graphs = capture.take()["graphs"]
    finally:
        capture.uninstall()
    (code,) = [c for g in graphs for c in g.get("output_code") or []]
    module = next(m for m in torch._inductor.codecache.PyCodeCache.modules if Path(m.__file__).read_text() == code)
    (name,) = profile.CPP_KERNEL.findall(code)
    kernel = getattr(module, name)
    result = profile.kernel_times(lambda: compiled(x), lambda: None, graphs, "cpu", 1e-3)
    assert getattr(module, name) is kernel  # restored
    (event,) = [e for e in result["events"] if e["name"] == name]
    assert event["graph"] == graphs[0]["compile_id"] and event["count"] == 1 and event["time_s"] > 0
    assert result["mechanism"] == "wrapped_kernels" and result["total_s"] >= event["time_s"]
