"""Where the time goes: per-kernel times joined to kernels, bytes and bandwidth, compile phases, sweeps."""

import pytest

from conftest import VERSIONS, analysis
from inspector.analysis import cost, kernels
from inspector.render import charts


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stem", ["trig", "sum"])
def test_profiled_kernels_are_the_captured_kernels_with_their_times(version, stem):
    a = analysis(version, stem)
    bandwidth = a.env.memory_bandwidth
    assert bandwidth.gb_s > 0 and bandwidth.bytes > 0
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        v = a.variant(vid)
        split = v.time_split
        assert split.unmatched == [] and 0 < split.kernels_s <= split.total_s
        n, genes = a.sample.shape
        itemsize = 1 if stem == "sum" else 8
        for k in v.kernels:
            c = k.cost
            assert c.time_s > 0 and c.launches_per_call == 1 and 0 < c.time_share <= 1
            # the population's bytes in, one float64 / int64 per individual out
            assert (c.read_bytes, c.written_bytes) == (n * genes * itemsize, n * 8)
            assert c.gb_s == pytest.approx((c.read_bytes + c.written_bytes) / c.time_s / 1e9)
            assert c.bandwidth_fraction == pytest.approx(c.gb_s / bandwidth.gb_s)
        lines = [e for e in v.lines if e.kernels]
        assert all(e.time_share > 0 for e in lines)
        phases = v.compile_phases
        if version == "2.1.2":  # no compile metrics: the compile time is the first call's extra time
            assert phases is None and v.timing.compile_s == pytest.approx(v.timing.first_call_s - v.timing.median_s)
            continue
        assert phases.total_s == pytest.approx(v.timing.compile_s)
        assert all(getattr(phases, k) >= 0 for k in cost.PHASE_KEYS)
        assert phases.cache == {}  # capture turns Inductor's FX graph cache off: no replayed facts


def test_many_launches_and_the_time_outside_graphs_of_a_graph_break():
    a = analysis("2.13.0", "sum")
    v = a.variant("numpy_apply-compiled-cpu")
    (k,) = [k for k in v.kernels if k.cost.time_s]
    assert k.cost.launches_per_call == a.sample.population  # one compiled row_sum per individual
    assert (k.cost.read_bytes, k.cost.written_bytes) == (1000, 8)
    split = v.time_split
    assert split.outside_graphs_s > split.kernels_s
    eager = [e for e in v.lines if e.status == "graph-break"]
    assert eager and all(e.time_s == split.outside_graphs_s for e in eager)


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
    (k,) = kernels.split(code).kernels
    assert cost.traffic(code, {k.name: k}) == {k.name: (24000, 1000)}


def test_a_population_sweep_gives_speedup_at_each_size():
    a = analysis("2.13.0", "trig")
    assert a.sample.population == 20_000  # the report is of the last size
    assert [s.population for s in a.sweep] == [2000, 20_000]
    for point in a.sweep:
        v = next(v for v in point.variants if v.id == "numpy-compiled-cpu")
        assert v.timing.median_s > 0 and v.speedup_vs_numpy > 0 and v.timing.compile_s > 0
    last = {v.id: v.speedup_vs_numpy for v in a.sweep[-1].variants}
    assert last == {v.id: v.speedup_vs_numpy for v in a.variants}  # the last size is this run
    plot = charts.sweep_plot(a.sweep)
    assert plot["basis"] == "numpy" and {s["id"] for s in plot["lines"]} >= {"numpy-compiled-cpu", "python"}
    assert [t["label"] for t in plot["xticks"]] == ["2,000", "20,000"]


@pytest.mark.parametrize("share, contrast", [(0.0, 4.5), (0.1, 4.5), (0.2, 4.5), (0.4, 4.5), (0.9, 4.5)])
def test_heat_colours_keep_their_text_readable(share, contrast):
    def luminance(hex_colour):
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    background, text = charts.heat(share)
    light, dark = sorted((luminance(background), luminance(text)), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= contrast
