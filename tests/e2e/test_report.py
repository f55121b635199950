"""`inspector report` and `inspector render` through the CLI, as the README promises (real compiles)."""

import shutil
from html import escape

import pytest

from conftest import ROOT, record_path, run_cli, tlparse, valid_json
from inspector.analysis import analyze
from inspector.model import FORMAT, FixKind
from inspector.record import SCHEMA, load
from inspector.render import fixes as fix_words, views
from inspector.render.said import busy as busy_words


@pytest.fixture(scope="module")
def trig(tmp_path_factory):
    """`inspector report samples/trig.py` at two population sizes: the main path, with a sweep."""
    out = tmp_path_factory.mktemp("trig")
    proc = run_cli("report", "samples/trig.py", "-n", "1000,2000", "--budget", "0.05", "--no-rewrites", "--no-warm",
                   "-o", out)
    return proc, out


def test_every_variant_runs_matches_and_the_report_is_written(trig):
    proc, out = trig
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    record = load(out / "trig.json")
    assert record.schema == SCHEMA and record.sample.population == 2000
    a = analyze(record)
    for v in a.variants:
        if v.device == "cuda" and not a.env.cuda:
            assert v.status == "skipped" and v.error == "CUDA is not available (torch.cuda.is_available() is False)"
            continue
        assert v.status == "ok" and v.check.matches is True, (v.id, v.error, v.check.mismatch)
        assert v.timing.min_s <= v.timing.median_s <= v.timing.max_s and v.timing.runs >= 3
    assert a.reference == "python"
    # one progress line per variant and size, then the seed-style table
    assert sum(line.strip().startswith("[") for line in proc.stderr.splitlines()) == 2 * len(a.variants)
    # the terminal in the report's order: the headline, then the table
    head = next(h for h in views.headlines(a))
    assert proc.stdout.startswith(f"{head.fastest} is the fastest") and "vs fastest" in proc.stdout
    assert f"wrote {out / 'trig.html'} and {out / 'trig.json'}" in proc.stderr
    # what a compiled run must capture for the line verdicts: provenance on every helper line
    v = a.variant("numpy-compiled-cpu")
    assert v.code.kernels and all(k.parallel for k in v.code.kernels if k.generated)
    helper = [e for e in v.code.lines if e.function != v.function]
    assert helper and all(e.status == "parallel" and "provenance" in e.how for e in helper)
    assert v.code.time_split.kernels_s > 0 and v.timing.first_call_s > v.timing.median_s
    # the profiled call taken apart: guards (Dynamo's cache look-up), torch's wrappers, Inductor's, kernels, the rest
    split = v.code.time_split
    assert split.guards_s > 0 and split.torch_wrappers_s > 0 and split.total_s == pytest.approx(
        split.kernels_s + split.wrapper_s + split.torch_wrappers_s + split.guards_s + split.outside_graphs_s)
    assert [s.population for s in a.sweep] == [1000, 2000]
    # where on the sweep compiling overtakes eager: said with the plot and in the terminal
    assert a.headlines[0].crossover and views.crossovers(a)[0] in proc.stdout
    assert escape(views.crossovers(a)[0]) in (out / "trig.html").read_text()
    # each kernel also timed on 1 thread (the same compiled code), and how busy the machine was meanwhile
    for raw in record.variants:
        if raw.status == "ok":
            assert raw.load.wall_s > 0 and raw.load.cpus == a.env.cpu_count
        if raw.id.endswith("-compiled-cpu") and a.env.threads > 1:
            one = {e.name for e in raw.thread_scaling.events if e.threads == 1}
            assert one >= {k.name for k in a.variant(raw.id).code.kernels if k.generated}
            assert not raw.recompiles.graphs  # timing on 1 thread compiled nothing anew
    threads = v.code.threads
    assert threads.points[0][0] == 1 and threads.speedup == threads.points[0][1] / threads.points[-1][1]
    # then every variant that ran, timed again in 3 rounds, each in turn: the ratios are taken side by side
    ran = {raw.id for raw in record.variants if raw.status == "ok"}
    fixes = {t.id for t in record.trials if t.status == "ok"}  # the fixes tried are timed in the same rounds
    assert set(record.rounds.variants) == ran | fixes and a.rounds.count == 3
    assert all(len(v.timing.rounds_s) == 3 and v.speedups.vs_numpy_spread for v in a.variants if v.id in ran)
    html = (out / "trig.html").read_text()
    assert "Speedup against population size" in html and "Where the time goes" in html
    # torch's structured trace beside the record: tlparse reads it with the command the README gives
    assert (record.trace_dir, record.trace_logs) == ("trig.trace", ["torch_trace.log"])
    assert "tlparse trig.trace/torch_trace.log -o trig.tlparse --no-browser" in html
    tlparse(out / "trig.trace" / "torch_trace.log", out / "trig.tlparse")


def test_the_fixes_for_strided_loads_are_tried_side_by_side_and_shown_where_the_advice_is(trig):
    proc, out = trig
    record = load(out / "trig.json")
    a = analyze(record)
    # guards on tensors only, tried where the guards' share of a call could make it gain (at this size: as the
    # machine measured it), never on a variant without that share; side by side, where it compiled
    guarded = [t for t in record.trials if t.fix == "guard-filter"]
    assert {t.variant for t in guarded} == {f.variant for f in a.fixes if f.kind == FixKind.GUARDS}
    assert all(not t.alone and f"trying guard-filter on {t.variant}" in proc.stderr for t in guarded)
    assert all(len(record.rounds.variants[t.id]) == 3 for t in guarded if t.status == "ok")
    tried = {t.fix: t for t in record.trials if t.fix != "guard-filter"}
    assert set(tried) == {"column-major", "tiling-off"}  # trig's constraint lines load genes strided
    for t in tried.values():
        assert t.status == "ok" and t.matches_variant is True, t
        assert t.capture.graphs and len(record.rounds.variants[t.id]) == 3
        assert f"trying {t.fix} on {t.variant}" in proc.stderr
    trials = {t.spec.name: t for v in a.variants for t in v.trials if t.spec.name in tried}
    assert trials["column-major"].effect.vectorized_now  # column-major: the constraint lines' loads are contiguous
    assert all(t.rounds == 3 and t.speedup > 0 for t in trials.values())
    html = (out / "trig.html").read_text()
    for t in trials.values():
        said = fix_words.trial(t)
        assert said.startswith("tried: ") and escape(said, quote=False) in html
        assert any(at.tried == said for c in (views.changes(a) if t.gain else views.tried_without_gain(a))
                   for at in c.at)


def test_a_folder_reports_every_sample_links_them_from_an_index_and_a_copys_verdicts_are_its_own(tmp_path):
    """A folder's samples, each reported and linked from an index; sum.py then a copy of it under another name (whose
    graphs Inductor's caches, filled by the first, would otherwise replay with the first file's stacks): the same
    verdicts, line by line, and the torch variant, whose graph equals the NumPy variant's, keeps its own lines; and
    each C++ kernel's machine code, however its shared object was built or reused. (A row's count of graph breaks
    is the index's from checked-in records: tests/fast/test_index.py; real breaks: test_breaks.py.)"""
    folder = tmp_path / "samples"
    folder.mkdir()
    shutil.copy(ROOT / "samples" / "sum.py", folder)
    shutil.copy(ROOT / "samples" / "sum.py", folder / "sum_copy.py")  # reported after sum.py (by name)
    (folder / "helpers.py").write_text("def not_a_sample():\n    pass\n")
    out = tmp_path / "out"
    proc = run_cli("report", folder, "-n", "1200", "--budget", "0.02", "-v", "numpy", "-v", "numpy-compiled-cpu",
                   "-v", "torch-compiled-cpu", "--no-profile", "--no-try-fixes", "--no-rewrites", "--no-warm",
                   "--rounds", 0, "-o", out)
    assert proc.returncode == 0, proc.stderr
    index = (out / "index.html").read_text()
    for stem in ("sum", "sum_copy"):
        assert (out / f"{stem}.html").exists() and f'href="{stem}.html"' in index
        assert '<a href="index.html">← index</a>' in (out / f"{stem}.html").read_text()
    assert not (out / "helpers.html").exists()
    # each row names its report's best compiled variant (whichever was faster here) and counts its breaks
    for stem in ("sum", "sum_copy"):
        (head,) = analyze(load(out / f"{stem}.json")).headlines
        assert head.compiled and f"<code>{head.compiled}</code>" in index
        assert f'data-label="graph breaks">{head.breaks}<' in index
    runs, machine = [], []
    for stem in ("sum", "sum_copy"):
        a = analyze(load(out / f"{stem}.json"))
        runs.append({v.id: [(e.line, e.status, e.vectorized, e.kernels, e.nests, e.how) for e in v.code.lines]
                     for v in a.variants if v.status == "ok"})
        machine.append([k.machine and k.machine.describe() for v in a.variants for k in v.code.kernels
                        if k.backend == "cpp"])
        assert not next(p for p in a.parse if p.artifact == "machine code").problems
    assert runs[0] == runs[1]
    assert machine[0] == machine[1] and len(machine[0]) == 2 and all(machine[0])
    torch_lines = runs[0]["torch-compiled-cpu"]
    assert [(status, "loop_nest" in how) for _, status, _, _, _, how in torch_lines] == [("parallel", True)]


@pytest.mark.parametrize("version, stem", [("2.13.0", "poly"), ("2.1.2", "knapsack_breaks")])
def test_render_reanalyses_a_record(tmp_path, version, stem):
    proc = run_cli("render", record_path(version, stem), "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / f"{stem}.html").read_text()
    assert f"torch {version}" in html and "numpy-compiled-cpu" in html and "vs numpy" in proc.stdout


def test_render_of_a_schema_1_record_gives_the_full_report(tmp_path):
    record = ROOT / "tests" / "fixtures" / "schema-1" / "knapsack_breaks.json"
    assert run_cli("render", record, "-o", tmp_path).returncode == 0
    html = (tmp_path / "knapsack_breaks.html").read_text()
    proc = run_cli("render", record, "-o", tmp_path / "text", "-f", "text")  # the full summary, and no page
    assert proc.returncode == 0 and not (tmp_path / "text").exists(), proc.stderr
    for part in ("Timings", "Graph breaks and recompilations", "Where the time goes", "Speedup against population",
                 "Your source, line by line", "Generated kernels", "Parse statistics"):
        assert part in html, part
    assert "graph break at line 45: Data-dependent branching" in proc.stdout


def test_compile_options_reach_torch_compile_and_redact_leaves_no_path_of_this_machine_in_what_is_written(tmp_path):
    """fullgraph=True refuses the knapsack's .item() break: that variant's compile error, its traceback full of
    torch's files, then redacted (--redact) in the record, the page and the analysis printed as JSON."""
    import os
    import sys
    proc = run_cli("report", "samples/knapsack_breaks.py", "-n", 2000, "--budget", 0.02, "-v", "numpy", "-v",
                   "torch-compiled-cpu", "--compile-option", "fullgraph=True", "--redact", "-f", "json",
                   "--no-profile", "--no-try-fixes", "--no-rewrites", "--no-warm", "--rounds", 0, "-o", tmp_path)
    assert proc.returncode == 1, proc.stderr
    data = valid_json(proc.stdout)
    assert data["format"] == FORMAT and data["compile_options"] == {"fullgraph": True}
    record = load(tmp_path / "knapsack_breaks.json")
    v = analyze(record).variant("torch-compiled-cpu")
    assert (v.status, v.error_stage) == ("error", "compile") and "Traceback" in v.error_detail
    for text in (tmp_path / "knapsack_breaks.json").read_text(), (tmp_path / "knapsack_breaks.html").read_text(), \
            proc.stdout:
        assert os.path.expanduser("~") not in text and sys.executable not in text and "/site-packages" not in text
    assert record.redacted and record.probe_log == "(redacted: the program's printed output)"
    assert record.env.executable == "<python>"
    bad = run_cli("report", "samples/poly.py", "--compile-option", "speed=11", "-o", tmp_path)
    assert bad.returncode == 2 and "--compile-option speed=11: expected KEY=VALUE, KEY one of mode" in bad.stderr


def test_a_variant_timed_while_another_process_loads_the_machine_says_so(tmp_path):
    """A busy loop in another process, running all the while (one core of the two: the suite's other worker keeps
    the other): the record measures the CPU time it took, and the timing row says the machine was busy."""
    import subprocess
    import sys
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])]
    try:
        # no rounds: the whole budget goes to the one timed window whose load is measured (calls of milliseconds:
        # the blocks' count does not end it first)
        proc = run_cli("report", "samples/poly.py", "-n", 200_000, "--budget", 1, "--rounds", 0, "-v", "numpy",
                       "--no-rewrites", "-o", tmp_path)
    finally:
        for p in busy:
            p.kill()
    assert proc.returncode == 0, proc.stderr
    record = load(tmp_path / "poly.json")
    facts = record.variants[0].load
    assert facts.wall_s > 0.3 and facts.others_cpu_s > 0.3 * facts.wall_s
    v = analyze(record).variant("numpy")
    window = v.timing.load
    assert window.others_share >= 0.2
    assert (busy_words(window) or "").startswith("timed on a busy machine: other processes used")
    # one caution for the page, with the figures, on the page and the terminal
    said = views.caution(analyze(record))
    assert said.startswith("other processes used") and "while the variants were timed" in said
    assert escape(said) in (tmp_path / "poly.html").read_text() and f"Caution: {said}" in proc.stdout

