"""Where the time goes: per-kernel times joined to kernels, bytes and bandwidth, compile phases, sweeps; and how
busy the machine was meanwhile."""

import statistics
from html import escape

import markupsafe
import pytest

from conftest import VERSIONS, analysis, record_path
from inspector.analysis import analyze, cost, kernels
from inspector.analysis.facts import Profiled
from inspector.analysis.variants import over
from inspector.model import of_raw
from inspector.raw import RawLoad
from inspector.record import load
from inspector.render import charts
from inspector.render import renderer, views
from inspector.render import said as words_said
from inspector.render import words
from inspector.render.words import seconds


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stem", ["trig", "sum"])
def test_profiled_kernels_are_the_captured_kernels_with_their_times(version, stem):
    a = analysis(version, stem)
    bandwidth = a.env.memory_bandwidth
    assert bandwidth.gb_s > 0 and bandwidth.bytes > 0
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        v = a.variant(vid)
        split = v.code.time_split
        assert split.unmatched == [] and 0 < split.kernels_s <= split.total_s
        n, genes = a.sample.shape
        itemsize = 1 if stem == "sum" else 8
        for k in v.code.kernels:
            c = k.cost
            assert c.time_s > 0 and c.launches_per_call == 1 and 0 < c.time_share <= 1
            # the population's bytes in, one float64 / int64 per individual out
            assert (c.read_bytes, c.written_bytes) == (n * genes * itemsize, n * 8)
            assert c.gb_s == pytest.approx((c.read_bytes + c.written_bytes) / c.time_s / 1e9)
            assert c.bandwidth_fraction == pytest.approx(c.gb_s / bandwidth.gb_s)
        lines = [e for e in v.code.lines if e.kernels]
        assert all(e.time_share > 0 for e in lines)
        phases = v.code.compile_phases
        if version == "2.1.2":  # no compile metrics: the compile time is the first call's extra time
            assert phases is None and v.timing.compile_s == pytest.approx(v.timing.first_call_s - v.timing.median_s)
            continue
        assert phases.total_s == pytest.approx(v.timing.compile_s)
        assert all(getattr(phases, k) >= 0 for k in cost.PHASE_KEYS)
        assert phases.cache == {}  # capture turns Inductor's FX graph cache off: no replayed facts


def test_many_launches_and_the_time_outside_graphs_of_a_graph_break():
    a = analysis("2.13.0", "sum")
    v = a.variant("numpy_apply-compiled-cpu")
    (k,) = [k for k in v.code.kernels if k.cost.time_s]
    assert k.cost.launches_per_call == a.sample.population  # one compiled row_sum per individual
    assert (k.cost.read_bytes, k.cost.written_bytes) == (1000, 8)
    split = v.code.time_split
    assert split.outside_graphs_s > split.kernels_s
    eager = [e for e in v.code.lines if e.status == "graph-break"]
    assert eager and all(e.time_s == split.outside_graphs_s for e in eager)


def test_triton_kernel_bytes_from_its_signature():
    code = '''
triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', """
@triton_heuristics.pointwise(size_hints={'x': 1024},
    triton_meta={'signature': {'in_ptr0': '*fp64', 'out_ptr0': '*i1', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}})
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
    assert (k.cost.read_bytes, k.cost.written_bytes) == (24000, 1000)


def test_a_population_sweep_gives_speedup_at_each_size():
    a = analysis("2.13.0", "trig")
    assert a.sample.population == 20_000  # the report is of the last size
    assert [s.population for s in a.sweep] == [2000, 20_000]
    for point in a.sweep:
        v = next(v for v in point.variants if v.id == "numpy-compiled-cpu")
        assert v.timing.median_s > 0 and v.speedups.vs_numpy > 0 and v.timing.compile_s > 0
    last = {v.id: v.speedups.vs_numpy for v in a.sweep[-1].variants}
    assert last == {v.id: v.speedups.vs_numpy for v in a.variants}  # the last size is this run
    plot = charts.sweep_plot(a.sweep)
    assert plot.basis == "numpy" and {s.id for s in plot.lines} >= {"numpy-compiled-cpu", "python"}
    assert [t.label for t in plot.xticks] == ["2,000", "20,000"]


def test_torchs_wrappers_are_told_apart_only_where_the_compiled_region_holds_one_graph():
    """torch's "Torch-Compiled Region" holds the wrappers around a graph; after a graph break it also holds the eager
    code between the graphs, so there the wrappers are not told apart from it."""
    record = load(record_path("2.13.0", "trig"))
    raw = next(v for v in record.variants if v.id == "numpy-compiled-cpu")
    kernels = analysis("2.13.0", "trig").variant("numpy-compiled-cpu").code.kernels
    kt = raw.kernel_times
    _, whole, _ = cost.costs(kernels, of_raw(Profiled, kt), None, None)
    _, broken, _ = cost.costs(kernels, of_raw(Profiled, kt), None, None, broken=True)
    assert whole.torch_wrappers_s == pytest.approx(kt.regions_s - kt.graphs_s) and whole.guards_s == kt.guards_s
    assert whole.total_s == pytest.approx(whole.kernels_s + whole.wrapper_s + whole.torch_wrappers_s + whole.guards_s
                                          + whole.outside_graphs_s)
    assert broken.torch_wrappers_s is None and broken.guards_s == kt.guards_s
    assert broken.outside_graphs_s == pytest.approx(whole.outside_graphs_s + whole.torch_wrappers_s)


@pytest.mark.parametrize("stem", ["trig", "ga"])
def test_a_calls_parts_are_medians_of_clock_timed_kernels_set_against_the_call_without_the_profiler(stem):
    """Kernels timed with the clock around their launches (a profiler range slowed them by up to 1.5x), every part a
    median of the pass's calls, against half as many calls around them without the profiler; a program's function is
    profiled so by its replay, on the copies, its one profiled call in the run the fallback."""
    a, record = analysis("2.13.0", stem), load(record_path("2.13.0", stem))
    units = a.variants if stem == "trig" else a.program.functions
    raws = {r.id: r for r in record.variants}
    compiled = [u for u in units if u.code.time_split]
    assert compiled
    for u in compiled:
        split, raw = u.code.time_split, raws[u.id]
        kt = raw.run.replay.kernel_times if raw.run else raw.kernel_times
        assert kt.mechanism == "timed_kernels" and kt.calls >= 3 and split.calls == kt.calls
        timed = [kt.unprofiled_s] if stem == "ga" else [kt.unprofiled_s, raw.timing.median_s]  # the probe's own
        assert split.call_s == min(timed) and split.total_s == kt.total_s
        assert split.kernels_s == pytest.approx(sum(e.time_s for e in kt.events))
        page = renderer("html").program(a) if stem == "ga" else renderer("html").report(a)
        assert str(markupsafe.escape(words.profiled_call(split))) in page
        assert "profiled calls, medians; timed without the profiler" in page
    if stem == "ga":  # the run's own profiled call is one call, kept in the record beside the replay's pass
        assert raws[compiled[0].id].kernel_times.calls == 1


def test_the_profilers_own_cost_is_taken_off_each_part_by_the_events_recorded_in_it():
    """The profiled call less the call without the profiler, over the events a call recorded, is each event's cost;
    each part loses it per event recorded in it (a part folded into the rest, with its events): the parts then add to
    the call. Where the call without the profiler came out the slower (noise), nothing is estimated."""
    estimated = 0
    for stem in ("trig", "ga"):
        a, record = analysis("2.13.0", stem), load(record_path("2.13.0", stem))
        raws = {r.id: r for r in record.variants}
        for u in a.variants if stem == "trig" else a.program.functions:
            split, raw = u.code.time_split, raws[u.id]
            kt = raw.run.replay.kernel_times if raw.run else raw.kernel_times
            if not split:
                continue
            assert kt.part_events and set(kt.part_events) <= {"kernels", "wrapper", "torch_wrappers", "guards",
                                                               "outside_graphs"}
            est = split.without_profiler
            page = renderer("html").program(a) if stem == "ga" else renderer("html").report(a)
            if split.call_s >= split.total_s:
                assert est is None and not words.without_profiler(split)
                continue
            estimated += 1
            assert est.events == sum(kt.part_events.values())
            assert est.per_event_s == pytest.approx((split.total_s - split.call_s) / est.events)
            folded = {p for p in ("torch_wrappers", "guards") if getattr(split, f"{p}_s") is None}
            for part in ("kernels", "wrapper", "torch_wrappers", "guards", "outside_graphs"):
                events = kt.part_events.get(part, 0) + (sum(kt.part_events.get(f, 0) for f in folded)
                                                        if part == "outside_graphs" else 0)
                profiled = getattr(split, f"{part}_s")
                assert getattr(est, f"{part}_s") == (None if profiled is None else pytest.approx(
                    max(0.0, profiled - events * est.per_event_s)))
            parts = [s for s in (est.kernels_s, est.wrapper_s, est.torch_wrappers_s, est.guards_s,
                                 est.outside_graphs_s) if s is not None]
            assert sum(parts) == pytest.approx(split.call_s) or min(parts) == 0.0
            said = words.without_profiler(split)
            assert said.startswith(f"Without the profiler (estimated: {est.events:g} events a call, about "
                                   f"{seconds(est.per_event_s)} each") and str(markupsafe.escape(said)) in page
    assert estimated


def test_a_sweep_says_where_compiling_overtakes_eager_per_call_and_with_its_compile():
    record = load(record_path("2.13.0", "trig"))
    a = analyze(record)
    (head,) = a.headlines
    c = head.crossover

    def best(point, compiled):
        return min((v for v in point.variants if v.compiled == compiled and v.timing),
                   key=lambda v: v.timing.per_population_s)
    assert c.compiled == best(a.sweep[-1], True).id and c.calls == 1000
    per_size = [(p, next(v for v in p.variants if v.id == c.compiled), best(p, False)) for p in a.sweep]
    faster = [x.timing.per_population_s < e.timing.per_population_s for _, x, e in per_size]
    paid = [x.timing.per_population_s + x.timing.compile_s / 1000 < e.timing.per_population_s for _, x, e in per_size]
    for found, before, flags in ((c.per_call, c.before, faster), (c.with_compile, c.with_compile_before, paid)):
        if all(flags):
            assert (found, before) == (2000, None)
        elif flags[-1]:
            assert (found, before) == (20_000, 2000)
        else:
            assert (found, before) == (None, None)
    said = views.crossovers(a)
    assert len(said) == 1 and said[0].startswith(f"On the sweep, {c.compiled} is faster than the fastest eager")
    # a compile of no cost pays over any number of calls: the crossover with it is the one per call
    free = analyze(record.but(sweep=[p.but(variants=[v.but(capture=v.capture.but(graphs=[
        g.but(metrics={"entire_frame_compile_time_s": 1e-9}) for g in v.capture.graphs])) if v.capture else v
        for v in p.variants]) for p in record.sweep]))
    c = free.headlines[0].crossover
    assert (c.with_compile, c.with_compile_before) == (c.per_call, c.before)
    assert analyze(record.but(sweep=[])).headlines[0].crossover is None  # no sweep, no crossover


@pytest.mark.parametrize("share, contrast", [(0.0, 4.5), (0.1, 4.5), (0.2, 4.5), (0.4, 4.5), (0.9, 4.5)])
def test_heat_colours_keep_their_text_readable(share, contrast):
    def luminance(hex_colour):
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    colours = charts.heat(share)
    light, dark = sorted((luminance(colours.background), luminance(colours.text)), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= contrast


def test_machine_load_is_the_other_processes_share_and_unknown_without_proc():
    quiet = {"wall_s": 2.0, "cpus": 2, "others_cpu_s": 0.1, "steal_s": 0.0, "cpu_total_s": 4.0, "loadavg": [0.3, 1.1]}
    load = over([RawLoad(**quiet)])
    assert load.others_share == pytest.approx(0.025) and load.loadavg == 1.1 and not load.busy
    stolen = over([RawLoad(**dict(quiet, steal_s=0.4))])
    assert stolen.steal_share == pytest.approx(0.1)
    assert "the hypervisor stole 10% of their time" in (words_said.busy(stolen) or "")
    # two windows: their CPU seconds added up
    both = over([RawLoad(**quiet), RawLoad(**dict(quiet, others_cpu_s=0.7, steal_s=0.4, loadavg=[2.5]))])
    assert (both.others_share, both.steal_share, both.loadavg) == (pytest.approx(0.1), pytest.approx(0.05), 2.5)
    no_proc = RawLoad(wall_s=2.0, cpus=2, others_cpu_s=None, steal_s=None, cpu_total_s=None, loadavg=[None, None])
    for unknown in (over([no_proc]), over([no_proc, no_proc])):  # none measured: unknown, not 0
        assert (unknown.others_share, unknown.steal_share, unknown.loadavg, unknown.busy) == (None, None, None, False)
    assert over([]) is None  # a record made before inspector measured the load
    # one 10 ms tick: 50 %, or noise
    short = over([RawLoad(**dict(quiet, wall_s=0.01, others_cpu_s=0.01))])
    assert (short.others_share, short.busy) == (None, False)


@pytest.mark.parametrize("vid", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_parallel_kernels_timed_on_one_thread_say_whether_parallel_paid(vid):
    a = analysis("2.13.0", "trig")
    v = a.variant(vid)
    t = v.code.threads
    assert t.threads == a.env.threads > 1 and t.specialised is None and [p[0] for p in t.points] == [1, t.threads]
    parallel = [k for k in v.code.kernels if k.parallel]
    assert parallel and all(k.cost.thread_speedup == pytest.approx(k.cost.threads_s[1] / k.cost.threads_s[t.threads])
                            for k in parallel)
    per_call = {n: sum(k.cost.threads_s[n] * (k.cost.launches_per_call or 1) for k in parallel) for n in (1, t.threads)}
    assert t.points == [(n, pytest.approx(s)) for n, s in per_call.items()]
    assert t.speedup == pytest.approx(t.points[0][1] / t.points[-1][1])
    sentence = words_said.scaling(t) or ""
    assert sentence.startswith("its parallel kernels ran ") and f"on {t.threads} threads" in sentence
    said = [r for e in v.code.lines if e.status == "parallel" for r in e.why if r.kind.startswith("parallel-")]
    assert said and all(r.kind == ("parallel-paid" if t.speedup >= cost.PAID else "parallel-did-not-pay") for r in said)


def test_torch_2_1_kernels_have_the_thread_count_compiled_in_and_say_so():
    t = analysis("2.1.2", "trig").variant("numpy-compiled-cpu").code.threads
    assert t.points == [] and t.speedup is None
    assert t.specialised.startswith("this torch compiles the thread count into its kernels (#pragma omp parallel "
                                    f"num_threads({t.threads}))")


def test_a_call_that_runs_a_graph_per_row_is_not_profiled_and_the_report_says_so():
    """torch 2.13 compiles np.apply_along_axis's row function and calls it once per row; 2.1 gives up on the frame
    and runs it eagerly (no graph: nothing to bound)."""
    assert not analysis("2.1.2", "first_draft").variant("numpy-compiled-cpu").code.graphs
    a = analysis("2.13.0", "first_draft")
    per_row = a.variant("numpy-compiled-cpu")
    (bound,) = per_row.code.bounds
    assert bound.startswith("not profiled: one call runs ") and "compiled graphs (a graph per row?)" in bound
    assert per_row.code.time_split is None and all(k.cost.time_s is None for k in per_row.code.kernels)
    assert not a.variant("torch-compiled-cpu").code.bounds  # a few graphs per call: profiled as usual
    assert all(v.peak_memory_bytes > 2**20 for v in a.variants if v.status == "ok")
    html = renderer("html").report(a)
    assert f"inspector's own cost was bounded: {escape(bound)}" in html and "peak memory" in html  # a column


@pytest.mark.parametrize("version", VERSIONS)
def test_times_and_ratios_come_from_the_same_alternating_rounds(version):
    record = load(record_path(version, "trig")).to_json()
    a = analysis(version, "trig")
    assert a.rounds.count == 3 and a.rounds.runs == 1
    rounds = record["rounds"]["variants"]
    scale = {v["id"]: a.sample.population / (v.get("measured_population") or a.sample.population)
             for v in record["variants"]}

    def per_round(vid):
        return {t["round"]: t["median_s"] * scale[vid] for t in rounds[vid]}

    numpy, python = per_round("numpy"), per_round("python")
    trials = {t["id"] for t in record.get("trials") or []}  # the fixes tried take their turns in the rounds too
    assert set(rounds) - trials == {v.id for v in a.variants if v.status == "ok" and not v.preview}
    for v in (a.variant(vid) for vid in rounds if vid not in trials):
        mine = per_round(v.id)
        for reference, said, spread in ((numpy, v.speedups.vs_numpy, v.speedups.vs_numpy_spread),
                                        (python, v.speedups.vs_python, v.speedups.vs_python_spread)):
            # the row's time is the median of its rounds, its ratio that of the two times; the spread the rounds'
            assert v.timing.per_population_s == pytest.approx(statistics.median(mine.values()))
            assert said == pytest.approx(statistics.median(reference.values()) / statistics.median(mine.values()))
            ratios = [reference[r] / mine[r] for r in mine]
            assert spread == pytest.approx([min(ratios), max(ratios)])
    html = renderer("html").report(a)
    assert "over 3 alternating rounds" in html


def test_where_a_compiled_call_is_mostly_overhead_the_first_screen_says_where_it_went_and_what_cuda_would_do():
    """Half or more of the headline's compiled call outside its kernels: the share and the parts, from the parts less
    the profiler's own cost where it was estimated, else as profiled; on the CPU, why reduce-overhead does not apply."""
    a = analysis("2.13.0", "decoded")
    (h,) = views.headlines(a)
    split = a.variant(h.compiled).code.time_split
    parts, whole = (split.without_profiler, split.call_s) if split.without_profiler else (split, split.total_s)
    said = [s for s in h.sentences if "outside its kernels" in s]
    assert parts.kernels_s <= 0.5 * whole and len(said) == 1
    assert f"{(1 - parts.kernels_s / whole) * 100:.0f} % of a {h.compiled} call is outside its kernels (" in said[0]
    assert all(f"{what} {seconds(s)}" in said[0] for what, s in (("guards", parts.guards_s),
                                                                 ("Inductor's wrapper", parts.wrapper_s)) if s)
    assert seconds(whole) in said[0]
    assert said[0].endswith('(mode="reduce-overhead" cuts such overhead with CUDA graphs: on CUDA only, the CPU has '
                            'none).')
    trig = analysis("2.13.0", "trig")
    assert not [s for h in views.headlines(trig) for s in h.sentences if "outside its kernels" in s]


def test_the_first_screen_gives_the_break_even_of_a_rerun_and_how_to_keep_torchs_caches_for_it():
    """Compiling pays after N calls cold, and after M on a rerun with torch's caches warm (the compile measured again
    in a fresh process): where a rerun pays, how to keep the caches it needs (torch's folder, or its artifacts)."""
    a = analysis("2.13.0", "trig")
    (h,) = views.headlines(a)
    v = a.variant(h.compiled)
    warm, after = v.timing.warm, v.speedups.warm_break_even
    assert warm.compile_s < v.timing.compile_s and after.calls < v.speedups.break_even.calls
    said = next(s for s in h.sentences if s.startswith("Compiling pays after"))
    assert (f"on a rerun, with torch's caches warm, after {words.break_even(after)} ({seconds(warm.compile_s)} of "
            "compile") in said
    assert said.endswith("where torch's cache folder lasts between runs (TORCHINDUCTOR_CACHE_DIR; or carry the "
                         "caches over with torch.compiler.save_cache_artifacts and load_cache_artifacts).")
