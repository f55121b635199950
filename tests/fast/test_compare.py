"""`inspector compare` from records: the normaliser on code from torch 2.1.2 and 2.13, kernel matching, and the
comparison of the checked-in runs of one sample under both versions."""

import json
import re
import shutil
import statistics
from dataclasses import replace

import pytest
from markupsafe import escape as html_escape

from typer.testing import CliRunner

from conftest import RECORDS, ROOT, VERSIONS, analysis, line_of, record_path, run_cli
from inspector.analysis import analyze, compare
from inspector.cli import app
from inspector.model import Confounder, Kernel, LineVerdicts, RegressionKind, TimeRow
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render import comparison as comparison_words
from inspector.render import renderer
from inspector.render.words import ratio, seconds
from inspector.render.said import confounder, pair_warning


def poly_kernel(version, vid):
    (k,) = [k for k in analysis(version, "poly").variant(vid).code.kernels]
    return k


@pytest.mark.parametrize("vid", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_poly_kernels_of_2_1_and_2_13_match_and_keep_their_real_differences(vid):
    old, new = poly_kernel("2.1.2", vid), poly_kernel("2.13.0", vid)
    pairs, removed, added = compare.match([old], [new])
    assert pairs == [(old, new)] and not removed and not added
    assert old.name != new.name  # 2.13 names select and scalar_tensor too
    hunks = compare.hunks(old.code, new.code)
    lines = [ln for h in hunks if h.kind == "structural" for ln in h.lines]
    text = "\n".join(lines)
    # the real changes: explicit double() casts, the integer-division error flag, the thread id
    assert re.search(r"^-auto tmp\d+ = tmp0 \+ tmp1;$", text, re.M)
    assert re.search(r"^\+auto tmp\d+ = double\(tmp0 \+ tmp1\);$", text, re.M)
    assert "+inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);" in lines
    assert "+int tid = omp_get_thread_num();" in lines
    # the noise is gone: include paths, num_threads, long/i0, ORIGIN comments, nesting braces
    for noise in ("#include", "num_threads", "long", "i0", "ORIGIN", "3L*x0)"):
        assert noise not in text, noise
    assert " for(int64_t x0=0L; x0<20000L; x0+=1L)" in lines  # unchanged context
    # what normalisation ignores is in cosmetic hunks, as the code has it: the include path, long/i0
    cosmetic = [ln for h in hunks if h.kind == "cosmetic" for ln in h.lines]
    assert any(ln.startswith("-#include") for ln in cosmetic)
    assert "+#include <torch/csrc/inductor/cpp_prefix.h>" in cosmetic
    assert any("i0" in ln and "long" in ln for ln in cosmetic if ln[0] == "-")
    assert all(h.a[0] <= h.a[1] and h.b[0] <= h.b[1] for h in hunks)


def _disguise(code):
    """The same kernel as 2.1 would spell it, renumbered and re-indented."""
    code = re.sub(r"\btmp(\d+)\b", lambda m: f"tmp{100 - int(m.group(1))}", code)
    code = code.replace("int64_t", "long").replace("x0", "i0")
    code = code.replace("#pragma omp parallel", "#pragma omp parallel num_threads(8)")
    code = code.replace("#include <torch/csrc/inductor/cpp_prefix.h>", '#include "/c/ib/c' + "a1" * 26 + '.h"')
    return "\n".join(f"  // a comment\n    {line.strip()}" if "auto" in line else line for line in code.splitlines())


def test_identical_code_with_renamed_temporaries_and_kernels_compares_identical():
    k = poly_kernel("2.13.0", "torch-compiled-cpu")
    other = replace(k, name=k.name.replace("_0", "_3"), id="other", code=_disguise(k.code))
    hunks = compare.hunks(k.code, other.code)
    assert other.code != k.code and hunks and {h.kind for h in hunks} == {"cosmetic"}
    assert compare.match([k], [other]) == ([(k, other)], [], [])
    assert "structural" in {h.kind for h in compare.hunks(k.code, other.code.replace(" >= ", " > ", 1))}


def _kernel(kid, name, code):
    return Kernel(id=kid, name=name, graph="0/0", backend="cpp", kind="pointwise", code=code, parallel=True,
                  parallel_regions=1, vectorized=False, ops=1, loads=1, strided_loads=[],
                  masked_loads=0, evidence=[], launches=[])


def test_kernels_are_matched_by_their_source_lines_not_their_position():
    a = [_kernel(f"a{i}", f"cpp_fused_{i}", f"x{i}") for i in range(2)]
    b = [_kernel("b" + k.id[1:], k.name, k.code) for k in reversed(a)]
    pairs, _, _ = compare.match(a, b, {"a0": {("f", "x = 1")}, "a1": {("f", "y = 2")}},
                                {"b1": {("f", "y = 2")}, "b0": {("f", "x = 1")}})
    assert [(x.id, y.id) for x, y in pairs] == [("a0", "b0"), ("a1", "b1")]


def test_comparing_the_runs_of_2_1_and_2_13():
    old, new = analysis("2.1.2", "poly"), analysis("2.13.0", "poly")
    result = compare.compare([old, new])
    assert [r.label for r in result.runs] == ["torch 2.1.2", "torch 2.13.0"]
    (pair,) = result.pairs
    # same population; timed apart, and NumPy, the torch build, the machine (the 2.13 record was made again for
    # its rewrites) and the sample's source changed too
    assert not pair.interleaved and [pair_warning(w)[:51] for w in pair.warnings] == [
        "NumPy 1.26.4 → 2.4.6: eager NumPy variants run on i",
        "torch build CUDA 12.1 (+cu121) → CPU-only (+cpu): t",
        "CPU AMD EPYC → Intel(R) Xeon(R) Processor: another ",
        "the sample's source changed between the runs: lines",
        "timed one after the other, not in alternating round"]
    by_id = {v.id: v for v in pair.variants}
    assert set(by_id) == {"python", "numpy", "numpy-compiled-cpu", "torch", "torch-compiled-cpu"}
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        v = by_id[vid]
        assert len(v.kernels) == 1 and not v.kernels[0].identical and not v.removed and not v.added
        assert v.breaks == () and not v.one_sided
        # parallel under both; under 2.1 GCC vectorized Inductor's scalar loop (its machine code has packed
        # arithmetic), 2.13 builds with -fno-tree-loop-vectorize and its machine code is scalar
        assert v.changed_lines and {(c.a.describe(), c.b.describe()) for c in v.changed_lines} == {
            ("parallel, vectorized", "parallel, not vectorized")}
        # a rerun's compile: measured under 2.13 (report's warm pass), not in the 2.1.2 record
        assert [t.what for t in v.timing] == ["time", "first call", "compile", "compile on a rerun"]
        assert v.timing[-1].a is None and v.timing[-1].b
    text = renderer("text").comparison(result)
    assert "samples/poly.py: torch 2.1.2 → torch 2.13.0" in text and "kernel cpp_fused_" in text


def test_breaks_worded_differently_by_two_torch_versions_are_the_same_break():
    """torch 2.1 says "Tensor.item", 2.13 "Unsupported Tensor.item() call with capture_scalar_outputs=False": one
    cause, so neither lost nor gained; the boolean mask 2.1 never broke at is a break 2.13 gained."""
    old, new = analysis("2.1.2", "knapsack_breaks"), analysis("2.13.0", "knapsack_breaks")
    (pair,) = compare.compare([old, new]).pairs
    by_id = {v.id: v for v in pair.variants}
    assert by_id["torch-compiled-cpu"].breaks == ()
    assert [(b.change, b.file, b.line) for b in by_id["numpy-compiled-cpu"].breaks] == [
        ("gained", None, line_of(new, "fitness[over] -="))]


def test_records_compare_warns_about_other_machines_breaks_gained_and_cache_hits():
    a, b = (json.loads(record_path("2.13.0", "poly").read_text()) for _ in range(2))
    b["env"]["threads"] = 64
    v = next(v for v in b["variants"] if v["id"] == "torch-compiled-cpu")
    v["capture"]["breaks"].append({"compile_id": "0/0", "mechanism": "logger", "text": (
        'Graph break: generic_jump TensorVariable() from user code at:\n  File "samples/poly.py", line 58, '
        'in check_constraints\n    return (x >= 1)')})
    for record, cache in ((a, "hit"), (b, "miss")):
        for g in next(v for v in record["variants"] if v["id"] == "torch-compiled-cpu")["capture"]["graphs"]:
            g["fx_graph_cache"] = cache
    result = compare.compare([analyze(RawRecord.from_json(a)), analyze(RawRecord.from_json(b))])
    text = renderer("text").comparison(result)
    assert (f"warning: threads {a['env']['threads']} → 64: compiled kernels run on that many OpenMP threads (timings "
            "are not comparable)") in text
    assert "graph break gained at line 58: generic_jump TensorVariable()" in text
    assert "Inductor's FX graph cache: hit under" in text
    html = renderer("html").comparison(result)
    assert 'class="warn"' in html and "graph break gained at line 58" in html
    assert [r for r in _said(result) if "graph break" in r] == [
        "torch-compiled-cpu (torch 2.13.0 (#1) → torch 2.13.0 (#2)): a graph break gained at line 58: "
        "generic_jump TensorVariable()"]


def test_compare_refuses_records_of_different_samples_and_a_single_record():
    poly, trig = analysis("2.13.0", "poly"), analysis("2.13.0", "trig")
    with pytest.raises(compare.CompareError, match=r"different samples \(poly.py, trig.py\)"):
        compare.compare([poly, trig])
    with pytest.raises(compare.CompareError, match="at least two records"):
        compare.compare([poly])


def test_escaping_in_the_comparison_html():
    record = json.loads(record_path("2.13.0", "poly").read_text())
    record["config"] = [{"key": "<script>alert(1)</script>", "value": 1}]
    record["env"]["numpy"] = "<script>alert(2)</script>"  # said again as a confounder
    html = renderer("html").comparison(compare.compare([analysis("2.1.2", "poly"),
                                                        analyze(RawRecord.from_json(record))]))
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "NumPy 1.26.4 → &lt;script&gt;alert(2)&lt;/script&gt;:" in html


def test_runs_that_took_turns_are_compared_round_by_round():
    """poly under torch 2.1.2 and 2.13, as `inspector compare --python A --python B` runs it: both probes alive,
    their variants timed again in 6 alternating rounds; each round's ratio is side by side."""
    raws = [load(RECORDS / "interleaved" / f"poly-torch-{v}.json").to_json() for v in VERSIONS]
    old, new = (analyze(RawRecord.from_json(r)) for r in raws)
    assert old.rounds.session == new.rounds.session and {old.rounds.position, new.rounds.position} == {0, 1}
    result = compare.compare([old, new])
    (pair,) = result.pairs
    assert pair.interleaved and not any("alternating" in pair_warning(w) for w in pair.warnings)
    text = renderer("text").comparison(result)
    for v in pair.variants:
        a, b = ({t["round"]: t["median_s"] for t in raw["rounds"]["variants"][v.id]} for raw in raws)
        assert sorted(a) == sorted(b) == list(range(6))
        ratios = [a[r] / b[r] for r in a]
        time = v.time
        assert time.rounds == 6 and time.speedup == pytest.approx(statistics.median(ratios))
        assert time.spread == pytest.approx((min(ratios), max(ratios)))
        assert time.a == pytest.approx(statistics.median(a.values()))
    assert text.count("in 6 alternating rounds") == len(pair.variants)
    # a compiled variant slower in every round is a regression; a round where it was not clears it
    slower = {v.id for v in pair.variants if v.compiled and v.time.spread[1] < 1 / 1.1}
    said = {r.split(" ")[0] for r in _said(result) if "rounds)" in r}
    assert said == slower


def _said(result):
    """compare --fail-on-regression's lines (less its "regression: ") for a Comparison."""
    return [comparison_words.regression(r) for r in compare.regressions(result)]


def _verdicts(*verdicts):
    return LineVerdicts(verdicts, ())


def test_a_worse_line_verdict_is_a_regression_and_a_better_one_is_not():
    worse = [("parallel", "all"), ("parallel", "some"), ("parallel", "none"), ("extern", None), ("serial", None),
             ("eager", None), ("graph-break", None)]
    ranks = [_verdicts(v).rank for v in worse]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert _verdicts(("parallel", "all"), ("eager", None)).rank == _verdicts(("eager", None)).rank
    assert _verdicts(("unknown", None)).rank is None  # not understood: neither worse nor better
    assert _verdicts(("parallel", "all"), ("eager", None)).describe() == "parallel, vectorized / eager"
    (pair,) = compare.compare([analysis("2.13.0", "knapsack_breaks")] * 2).pairs
    v = next(v for v in pair.variants if v.id == "numpy-compiled-cpu")
    first, second, third = v.same_lines[:3]
    lines = [replace(first, a=_verdicts(("parallel", "all")), b=_verdicts(("parallel", "none"))),
             replace(second, a=_verdicts(("serial", None)), b=_verdicts(("parallel", "none"))),
             replace(third, a=_verdicts(("parallel", "all")), b=_verdicts(("unknown", None)))]
    changed = replace(pair, variants=(replace(v, lines=tuple(lines), breaks=()),))
    found = compare.regressions(replace(compare.compare([analysis("2.13.0", "knapsack_breaks")] * 2),
                                        pairs=(changed,)))
    assert [(r.kind, r.variant, r.place, r.line) for r in found] == [
        (RegressionKind.LINE, "numpy-compiled-cpu", lines[0], lines[0])]
    assert [comparison_words.regression(r) for r in found] == [
        f"numpy-compiled-cpu ({pair.a} → {pair.b}): line {first.line}: parallel, vectorized → parallel, not vectorized"]


def test_a_reruns_compile_slower_by_half_is_a_regression_and_noise_is_not():
    record = load(record_path("2.13.0", "trig"))

    def slower(factor):  # the record as if torch's compile of every rerun had taken ``factor`` times as long
        return analyze(record.but(variants=[v.but(warm=v.warm.but(metrics=[
            dict(m, entire_frame_compile_time_s=m["entire_frame_compile_time_s"] * factor) for m in v.warm.metrics]))
            if v.warm else v for v in record.variants]))
    base = analyze(record)
    found = compare.regressions(compare.compare([base, slower(3.0)]))
    assert {(r.kind, r.variant) for r in found} == {(RegressionKind.RERUN, "numpy-compiled-cpu"),
                                                    (RegressionKind.RERUN, "torch-compiled-cpu")}
    torch_ = next(r for r in found if r.variant == "torch-compiled-cpu")
    warm = base.variant("torch-compiled-cpu").timing.warm.compile_s
    assert comparison_words.worse(torch_) == (f"its compile on a rerun, torch's caches warm, took {seconds(warm)} → "
                                              f"{seconds(warm * 3.0)}")
    assert not compare.regressions(compare.compare([base, slower(1.2)]))  # within what compiles vary by


def _interleaved():
    """The comparison of poly under torch 2.1.2 and 2.13, timed in alternating rounds (numpy, numpy-compiled-cpu,
    torch-compiled-cpu)."""
    return compare.compare([analyze(load(RECORDS / "interleaved" / f"poly-torch-{v}.json")) for v in VERSIONS])


def _moved(v, speedup, change):
    """``v`` as if its time had moved by ``speedup`` (a / b) in every round, and been read as ``change``."""
    return replace(v, change=change, timing=(TimeRow("time", 1.0, 1.0 / speedup, speedup, (speedup, speedup), 6),)
                   + tuple(v.timing[1:]))


def test_the_verdict_comes_first_and_reads_each_compiled_variant_against_its_eager_control():
    (measured,) = _interleaved().pairs
    by_id = {v.id: v for v in measured.variants}
    assert set(by_id) == {"numpy", "numpy-compiled-cpu", "torch-compiled-cpu"}
    # no eager torch in these records: torch-compiled-cpu's control is its family's eager NumPy variant
    assert by_id["numpy-compiled-cpu"].control == by_id["torch-compiled-cpu"].control == "numpy"
    # the reading of what was measured: each compiled variant's change against its control's
    for i in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        control, v = by_id["numpy"], by_id[i]
        said = comparison_words.reading(measured, v)
        assert said.startswith(f"eager numpy {ratio(control.time.speedup, 'change')}"
                               if control.change != "no clear change" else "eager numpy shows no clear change")
    # both compiled variants slower, and their control too, in every round: part of the change is NumPy's
    moved = {"numpy": (1 / 1.06, "slower"), "numpy-compiled-cpu": (1 / 2.13, "slower"),
             "torch-compiled-cpu": (1 / 1.5, "slower")}
    pair = replace(measured, variants=tuple(_moved(v, *moved[v.id]) for v in measured.variants))
    by_id = {v.id: v for v in pair.variants}
    said = "eager numpy also 1.06x slower: part of the change is the machine or NumPy, not torch's compiler"
    assert all(comparison_words.reading(pair, by_id[i]) == said for i in ("numpy-compiled-cpu", "torch-compiled-cpu"))
    assert comparison_words.reading(pair, by_id["numpy"]) == ("control: the machine or NumPy can change its time, "
                                                              "torch's compiler cannot")
    summary = comparison_words.summary(pair)
    assert summary.startswith("Under torch 2.13.0 against torch 2.1.2, of 2 compiled variants: 2 slower (")
    assert "numpy-compiled-cpu 2.13x slower" in summary and "(in every alternating round)" in summary
    result = replace(_interleaved(), pairs=(pair,))
    text = renderer("text").comparison(result)
    assert f"    {said}" in text
    html = renderer("html").comparison(result)
    # the answer before any per-variant section, the runs' environment last
    order = [html.index(x) for x in (html_escape(summary), 'class="verdicts"', html_escape(said), "Line verdicts",
                                      "Where the time goes", 'id="p0-numpy"', "<h2>Runs</h2>")]
    assert order == sorted(order)


def test_reading_says_unknown_where_the_control_cannot_tell():
    (interleaved,) = _interleaved().pairs
    eager, compiled_v = (next(v for v in interleaved.variants if v.id == i) for i in ("numpy", "numpy-compiled-cpu"))

    def pair(control, compiled, confounders=()):
        variants = (replace(eager, change=control[0], timing=(TimeRow("time", 1.0, 1.0, control[1]),)),
                    replace(compiled_v, change=compiled[0], timing=(TimeRow("time", 1.0, 1.0, compiled[1]),)))
        p = replace(interleaved, variants=variants,
                    confounders=tuple(Confounder(k, k, "1", "2") for k in confounders))
        return comparison_words.reading(p, variants[1])
    assert pair(("no clear change", 1.02), ("slower", 0.5)) == (
        "eager numpy shows no clear change (1.02x faster): the machine or NumPy cannot explain the change, so it is "
        "in torch's compiled code")
    assert pair(("faster", 1.3), ("slower", 0.5), ["threads"]) == (
        "eager numpy 1.3x faster meanwhile, but the threads changed too, which eager code may not feel: whether the "
        "change is torch's compiler or the machine is unknown")
    assert pair(("no clear change", 1.02), ("no clear change", 0.98)) == (
        "eager numpy shows no clear change either (1.02x faster)")
    assert pair(("slower", 0.4), ("slower", 0.5)) == (
        "eager numpy also 2.5x slower: the change may be all the machine or NumPy, not torch's compiler")
    (p,) = compare.compare([analysis("2.1.2", "ten_genes"), analysis("2.13.0", "ten_genes")]).pairs  # one machine
    timed_apart = next(v for v in p.variants if v.id == "torch-compiled-cpu")
    assert comparison_words.reading(p, timed_apart).endswith(
        "cannot explain the change, so it is in torch's compiled code (unless a load came and went while the runs "
        "were timed apart)")
    lone = replace(next(v for v in p.variants if v.id == "numpy-compiled-cpu"), control=None)
    assert comparison_words.reading(p, lone) == ("no eager variant of its family ran under both: whether the machine "
                                                 "or NumPy changed its time is unknown")


def test_numpy_and_the_build_of_torch_are_flagged_and_an_unnamed_build_is_unknown():
    assert [compare.build(v) for v in ("2.13.0+cpu", "2.1.2+cu121", "2.5.1+cu118", "2.4.0+rocm6.1", "2.13.0")] == [
        "CPU-only (+cpu)", "CUDA 12.1 (+cu121)", "CUDA 11.8 (+cu118)", "ROCm 6.1 (+rocm6.1)", "unknown"]
    result = _interleaved()
    (pair,) = result.pairs
    assert [(c.key, c.a, c.b) for c in pair.confounders] == [
        ("numpy", "1.26.4", "2.4.6"), ("build", "CUDA 12.1 (+cu121)", "CPU-only (+cpu)")]
    html = renderer("html").comparison(result)
    assert "Not only torch changed" in html and "NumPy 1.26.4 → 2.4.6" in html
    assert re.search(r'<tr class="differs-row"><th scope="row">numpy <span class="small">\(differs\)', html)
    record = json.loads(record_path("2.13.0", "poly").read_text())
    record["env"]["torch"] = "2.13.0"  # a wheel that names no build
    (pair,) = compare.compare([analysis("2.1.2", "poly"), analyze(RawRecord.from_json(record))]).pairs
    build = next(c for c in pair.confounders if c.key == "build")
    assert build.b == "unknown" and "whether it changed cannot be told" in confounder(build)
    same = compare.compare([analyze(RawRecord.from_json(record)), analyze(RawRecord.from_json(record))]).pairs[0]
    assert same.confounders == ()  # one torch, unnamed build: nothing to flag


def test_the_per_line_verdict_diff_gives_each_line_its_text_and_both_verdicts():
    old, new = analysis("2.1.2", "knapsack_breaks"), analysis("2.13.0", "knapsack_breaks")
    result = compare.compare([old, new])
    v = next(v for v in result.pairs[0].variants if v.id == "numpy-compiled-cpu")
    line = line_of(new, "totals = population @ ITEMS")
    assert [(None, "fitness_numpy", "totals = population @ ITEMS", line, "parallel, not vectorized",
             "extern, vectorized")] == [(e.file, e.function, e.text, e.line, e.a.describe(), e.b.describe())
                                        for e in v.changed_lines if e.line == line]
    assert all(e.a.verdicts == e.b.verdicts for e in v.same_lines) and v.same_lines
    html = renderer("html").comparison(result)
    assert (f'<td>numpy-compiled-cpu</td><td class="num">{line}</td><td class="src">'
            "<code>totals = population @ ITEMS</code></td><td>parallel, not vectorized</td>"
            "<td>extern, vectorized</td>") in html
    # the sample's lines match however each run was given its path
    record = json.loads(record_path("2.13.0", "knapsack_breaks").read_text())
    record["sample"]["path"] = "/elsewhere/samples/knapsack_breaks.py"
    moved = next(v for v in compare.compare([old, analyze(RawRecord.from_json(record))]).pairs[0].variants
                 if v.id == "numpy-compiled-cpu")
    assert moved.lines == v.lines


def test_where_the_time_goes_pairs_each_kernels_time_per_call_with_the_time_row():
    (pair,) = _interleaved().pairs
    v = next(v for v in pair.variants if v.id == "torch-compiled-cpu")
    goes = v.time_goes
    (ka,), (kb,) = (r.variant("torch-compiled-cpu").code.kernels for r in (
        analyze(load(RECORDS / "interleaved" / f"poly-torch-{ver}.json")) for ver in VERSIONS))
    assert [(r.what, r.a, r.b) for r in goes.kernels] == [(f"{ka.name} → {kb.name}", ka.cost.time_s, kb.cost.time_s)]
    assert (goes.call.what, goes.call.a, goes.call.b) == ("the whole call (timed, as above)", v.time.a, v.time.b)
    assert goes.call.speedup == pytest.approx(v.time.a / v.time.b)  # a ratio of medians, not the rounds' median
    assert [r.what for r in goes.rest][0] == "all kernels" and goes.more == 0


def test_diff_hunks_are_labelled_structural_or_cosmetic_in_the_html():
    html = renderer("html").comparison(_interleaved())
    assert "<strong>structural</strong>: the normalised code differs · lines" in html
    assert "cosmetic hunk" in html and "only what normalisation ignores changed" in html
    assert re.search(r'<span class="add">\+auto tmp\d+ = double\(tmp0 \+ tmp1\);</span>', html)


def test_the_page_links_both_reports_or_says_how_to_make_them(tmp_path):
    result = _interleaved()
    records = [tmp_path / f"poly-torch-{v}.json" for v in VERSIONS]
    records[1].with_suffix(".html").write_text("report")
    result = compare.link_reports(result, records, tmp_path)
    assert [r.report for r in result.runs] == [None, "poly-torch-2.13.0.html"]
    html = renderer("html").comparison(result)
    assert '<a href="poly-torch-2.13.0.html">torch 2.13.0</a>' in html
    assert f"<code>inspector render {records[0]}</code> makes it" in html


def test_two_run_records_of_a_program_compare_per_function(tmp_path):
    """`inspector run samples/programs/ga.py` under torch 2.1.2 and 2.13, compared from disk: per compiled function
    its steady time per call, compile, calls and recompiles, kernels and verdicts; the runs were sequential."""
    proc = run_cli("compare", record_path("2.1.2", "ga"), record_path("2.13.0", "ga"), "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    old, new = (analysis(v, "ga").function("fitness") for v in VERSIONS)
    assert (f"fitness: time per steady call {seconds(old.timing.median_s)} → {seconds(new.timing.median_s)}"
            in proc.stdout)
    assert (f"calls {old.run.calls} → {new.run.calls} (steady: {old.run.steady_calls} → {new.run.steady_calls}); "
            f"recompiles {len(old.run.recompiles)} → {len(new.run.recompiles)}") in proc.stdout
    assert "the runs were sequential" in proc.stdout and "has no eager variant to read as the control" in proc.stdout
    html = (tmp_path / "ga-compare.html").read_text()
    assert '<th scope="row">arguments' in html and "<td>3000 8</td>" in html and "machine load" in html
    assert '<h3 id="p0-fitness">fitness</h3>' in html and "time per steady call" in html


def _slower(tmp_path, factor, recompiles=0, error=None):
    """The 2.13 record of the GA program with fitness's steady calls ``factor`` times slower, ``recompiles`` more
    recompiles, and ``error`` raised at its last call, written beside the original."""
    raw = json.loads(record_path("2.13.0", "ga").read_text())
    if error:
        raw["variants"][0].update(error=error, error_call=8)
    t = raw["variants"][0]["timing"]
    t.update({k: t[k] * factor for k in ("median_s", "min_s", "max_s")}, samples_s=[s * factor for s in t["samples_s"]])
    raw["variants"][0]["run"]["compiles"] += [dict(raw["variants"][0]["run"]["compiles"][-1], call=8)] * recompiles
    (tmp_path / "slow.json").write_text(json.dumps(raw))
    shutil.copy(record_path("2.13.0", "ga"), tmp_path / "base.json")
    return tmp_path / "base.json", tmp_path / "slow.json"


def test_a_programs_slowdown_recompiles_and_exceptions_fail_the_build(tmp_path):
    base, slow = _slower(tmp_path, 3.0, recompiles=1, error="ValueError: Unknown format code 'f'\n\nfrom user code")
    proc = run_cli("compare", base, slow, "--fail-on-regression", "-o", tmp_path)
    assert proc.returncode == 3, proc.stderr
    where = "fitness (torch 2.13.0 (#1) → torch 2.13.0 (#2))"
    assert [ln for ln in proc.stderr.splitlines() if ln.startswith("regression")] == [
        f"regression: {where}: raised at call 8: ValueError: Unknown format code 'f'",
        f"regression: {where}: recompiles 2 → 3", f"regression: {where}: {ratio(1 / 3, 'change')}"]  # 3x slower
    assert "raised under torch 2.13.0 (#2) at call 8: ValueError: Unknown format code 'f'" in proc.stdout
    base, slow = _slower(tmp_path, 1.05)  # within --max-slowdown
    assert run_cli("compare", base, slow, "--fail-on-regression", "-o", tmp_path).returncode == 0


def test_a_program_and_a_sample_are_not_compared():
    with pytest.raises(compare.CompareError, match=r"a program's record \(inspector run\) and a sample's record"):
        compare.compare([analysis("2.13.0", "ga"), analysis("2.13.0", "poly")])


def _penalised(helper_vectorized):
    """penalised under torch 2.13 with torch-compiled-cpu's verdict of the helper's line 12 copied onto the sample's
    line 12 (another file, the same number and function), and the helper's own line 12 ``helper_vectorized``."""
    a = analysis("2.13.0", "penalised")
    v = a.variant("torch-compiled-cpu")
    helper = [e for e in v.code.lines if e.file == "samples/helpers/penalties.py" and e.line == 12]
    lines = [replace(e, vectorized=helper_vectorized) if e in helper else e for e in v.code.lines]
    lines += [replace(e, file=a.sample.path) for e in helper]
    return replace(a, variants=tuple(replace(x, code=replace(x.code, lines=tuple(lines))) if x is v else x
                                     for x in a.variants))


def test_lines_of_two_files_with_one_number_are_compared_apart():
    """A helper module's line 12 changed its verdict, the sample's line 12 did not: the change is the helper's,
    with the helper's text, and is not merged with the sample's line of the same number."""
    result = compare.compare([_penalised("all"), _penalised("none")])
    v = next(v for v in result.pairs[0].variants if v.id == "torch-compiled-cpu")
    helper_text = analysis("2.13.0", "penalised").file("samples/helpers/penalties.py").text(12)
    assert [(e.file, e.line, e.text, e.a.describe(), e.b.describe()) for e in v.changed_lines] == [
        ("samples/helpers/penalties.py", 12, helper_text, "parallel, vectorized", "parallel, not vectorized")]
    assert (None, 12, "import torch", "parallel, vectorized") in {
        (e.file, e.line, e.text, e.b.describe()) for e in v.same_lines}
    assert [r.split(": ", 1)[1] for r in _said(result) if "torch-compiled-cpu" in r] == [
        "samples/helpers/penalties.py:12: parallel, vectorized → parallel, not vectorized"]
    text = renderer("text").comparison(result)
    assert ("line 12 of samples/helpers/penalties.py (box_violation): parallel, vectorized under torch 2.13.0 (#1) → "
            "parallel, not vectorized under torch 2.13.0 (#2)") in text
    html = renderer("html").comparison(result)
    assert ('<td>torch-compiled-cpu</td><td class="num">samples/helpers/penalties.py:12</td><td class="src"><code>'
            f"{html_escape(helper_text)}</code></td><td>parallel, vectorized</td><td>parallel, not vectorized</td>"
            ) in html
    assert '<td class="num">12</td><td class="src"><code>import torch</code></td><td>parallel, vectorized</td>' in html


@pytest.mark.parametrize("args, message", [
    (["samples/poly.py"], "nothing to compare with"),
    (["samples/poly.py", "--run", "nonsense"], "expected comma-separated"),
    (["samples", "--python", "python"], "compare takes one sample file"),
    (["a.json", "--python", "python"], "give a .py file"),
])
def test_bad_compare_options_are_refused_before_anything_runs(args, message):
    """Each is the one error ``main()`` prints in one line, exit 2 (tests/e2e/test_errors.py runs that path)."""
    said = CliRunner().invoke(app, ["compare", str(ROOT / args[0]), *args[1:]])
    assert said.exit_code != 0 and message in str(said.exception), said.output
