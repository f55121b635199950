"""`inspector run PROGRAM`: any program as it is (real compiles): its output and exit status kept, its compiled
functions found wherever torch.compile was used, the report written however the program ends."""

import math
import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, interruptible, line_of, package_frames, run_cli, tlparse
from inspector.analysis import analyze
from inspector.record import load
from inspector.render import section as sections
from inspector.render import renderer
from inspector.render.said import guard

HELPER = '''\
import torch


@torch.compile
def shifted(x):
    return torch.relu(x - 0.5) * 2
'''
ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # inspector importable from another folder, installed or not
MESSY = textwrap.dedent('''\
    import time

    import torch
    from helper_mod import shifted


    class Scorer:
        @torch.compile
        def score(self, x):
            return (x * 2).sum(1)


    def helper(x):
        return torch.sin(x) + 1


    compiled_helper = torch.compile(helper, mode="default")
    scorer = Scorer()
    x = torch.ones(20000, 8)  # large enough for OpenMP
    for _ in range(3):
        scorer.score(x)
        compiled_helper(x)
        shifted(x)
    print("ready", flush=True)
    while True:  # until Ctrl-C
        compiled_helper(x)
        print("looping", flush=True)
        time.sleep(0.01)
''')


def test_a_ga_program_runs_as_it_is_and_the_report_shows_what_compiled(tmp_path):
    """Its own cache folder (XDG_CACHE_HOME): a run that found every graph in torch's caches is not rerun."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    proc = run_cli("run", "-o", tmp_path, "--budget", 1, "samples/programs/ga.py", 3000, 8, env=env)  # replay: 1 s
    assert proc.returncode == 0, proc.stderr
    # the program's own output, as it prints it, then the summary on stderr
    assert proc.stdout.count("best of this generation") == 8 and "done: 8 generations, population 4,500" in proc.stdout
    assert "fitness" in proc.stderr and f"wrote {tmp_path / 'ga.html'}" in proc.stderr
    a = analyze(load(tmp_path / "ga.json"))
    (f,) = a.program.functions
    assert (f.id, f.run.calls, a.program.exit) == ("fitness", 8, 0)
    # how busy the machine was while it ran, the program's own CPU time left out (what compare --program shows)
    assert a.load and a.load.cpus and 0 <= a.load.others_share <= 1
    item = line_of(a, "best = value.min().item()")
    assert item in {b.line for b in f.code.breaks}
    # both recompilations, each at its call with the guard that failed
    said = {c.call: " ".join(guard(r) for r in c.reasons) for c in f.run.recompiles}
    assert "size mismatch at index 0. expected 3000, actual 4500" in said[5]
    assert any("___stack0 ==" in text and f"after the graph break at line {item}; ___stack0 is a value Dynamo carried "
               "over that break" in text for text in said.values())
    verdicts = {e.line: e.status for e in f.code.lines}
    for text in ("value = (pop**2", "excess = torch.clamp", "value = value + penalty"):
        assert verdicts[line_of(a, text)] == "parallel", text
    assert f.timing.median_s > 0 and f.run.steady_calls >= 1 and f.run.profiled_call and f.code.time_split.kernels_s > 0
    html = (tmp_path / "ga.html").read_text()
    assert "<code>fitness</code>" in html and "at call 5" in html and "Your source, line by line" in html
    tlparse(tmp_path / "ga.trace" / "torch_trace.log", tmp_path / "ga.tlparse")
    # then rerun bare, its output discarded (the counts above), with torch's caches warm: each frame torch compiled
    # in the run (its compile ids, restarts aside) compiled again, found in Inductor's FX graph cache, where the run
    # left it (its cache keys are the rerun's: one rerun)
    assert "inspector: rerunning the program bare" in proc.stderr
    raw = load(tmp_path / "ga.json").variants[0]
    # the replay's profiled calls, their events counted by the part of the call that paid for recording them: the
    # parts less that cost (estimated) add to the call timed without the profiler (on a busy machine the replay's
    # budget may leave no time for its profiled pass: the program's own profiled call then stays the split's)
    split, replayed = f.code.time_split, raw.run.replay.kernel_times
    assert replayed is None or sum(replayed.part_events.values()) >= 3
    assert split.call_s >= split.total_s or split.without_profiler.events >= 3
    compiles = {g.compile_id.split("_")[0] for c in (raw.capture, raw.recompiles) if c for g in c.graphs or []}
    assert len(raw.warm.metrics) == len(compiles) and raw.warm.processes == 1
    assert not any(m["inductor_fx_local_cache_miss_count"] for m in raw.warm.metrics)
    assert f.timing.warm.compile_s == sum(m["entire_frame_compile_time_s"] for m in raw.warm.metrics)
    assert f.replay.warm
    if f.replay.eager_s <= f.replay.compiled_s:  # a loaded machine's replay: compiled calls no faster, never pays
        assert f.replay.warm.calls is None and "On a rerun, with torch's caches warm, it never pays." in proc.stderr
        return
    assert f.replay.warm.calls * (f.replay.eager_s - f.replay.compiled_s) == pytest.approx(f.timing.warm.compile_s)
    assert f"On a rerun, with torch's caches warm, it pays after about {math.ceil(f.replay.warm.calls):,} calls" in (
        proc.stderr)


def test_methods_and_functions_compiled_anywhere_are_found_and_ctrl_c_reaches_the_program_and_the_report_keeps_them(
        tmp_path):
    """The program run as a module (-m) until Ctrl-C: its KeyboardInterrupt's traceback is Python's, without
    inspector's frames nor runpy's; a method, a function compiled by a call and one decorated in another module are
    found, their calls counted up to the interrupt, and its exit status is the program's."""
    (tmp_path / "messy.py").write_text(MESSY)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "run", "-o", "out", "--no-warm", "-m", "messy"],
                            cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=interruptible)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert proc.stdout.readline().strip() == "looping"  # a fourth call made
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does: to inspector and the program alike
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # the program too: it is in inspector's session
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert "KeyboardInterrupt" in stderr and 'messy.py", line' in stderr
    assert not package_frames(stderr) and "runpy" not in stderr
    a = analyze(load(tmp_path / "out" / "messy.json"))
    assert a.program.exit == 130
    # in the order the program compiled them: the imported module's decorator first
    assert [v.id for v in a.program.functions] == ["shifted", "Scorer.score", "helper"]
    assert [v.run.calls for v in a.program.functions[:2]] == [3, 3] and a.function("helper").run.calls > 3
    assert all(e.status == "parallel" for v in a.program.functions for e in v.code.lines)
    assert {os.path.basename(e.file) for e in a.function("shifted").code.lines} == {"helper_mod.py"}


def test_odd_calls_once_never_eager_first_stances_and_closures_are_told_as_torch_sees_them(tmp_path):
    program = "samples/programs/odd_calls.py"
    # torch's own log of the same run: the program's stderr, before inspector's summary
    proc = run_cli("run", "-o", tmp_path, "--no-replay", "--no-warm", program, 2000,
                   env=dict(os.environ, TORCH_LOGS="recompiles"))
    logged = proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "odd_calls.html").exists() and "USDT" not in proc.stderr
    a = analyze(load(tmp_path / "odd_calls.json"))
    normalise, penalty, fitness, objective = a.program.functions
    # called once: its compile and nothing after it, the report written all the same
    assert (normalise.run.calls, normalise.timing, normalise.run.compiled_at) == (1, None, 1)
    # never compiled itself: fitness's graphs hold its code; its calls inside fitness's eager calls ran eagerly
    assert penalty.run.inlined_into == ["fitness"] and penalty.run.kinds.counts.get("eager", 0) == penalty.run.calls
    # eager first call (force_eager): compiled at call 2, which is no recompile; torch logs only the closure's
    assert (fitness.run.compiled_at, fitness.run.recompiles) == (2, [])
    assert logged.count("Recompiling function") == sum(len(v.run.recompiles) for v in a.program.functions) == 1
    stances = [(s.first, s.last, s.stance, s.eager) for s in fitness.run.stances]
    assert stances[0] == (1, 1, "force_eager", True) and (7, 9, "eager_on_recompile", True) in stances
    assert fitness.run.eager_calls == 4 and fitness.run.fallbacks == 3
    assert "rank mismatch" in fitness.run.fallback_guards[0][1]
    assert fitness.timing.runs == fitness.run.steady_calls == 10 - 4 - 1 - 2  # eager, compiling, traced, profiled
    # two closures of one decorator: one code object, one function as torch's cache is, the second closure's first
    # call torch's recompile of it
    assert (objective.id, objective.run.kinds.wrappers) == ("per_row.<locals>.objective", 2)
    assert [c.call for c in objective.run.recompiles] == [2]
    assert "never compiled itself: inlined into fitness" in proc.stderr
    assert "ran eagerly instead of recompiling" in proc.stderr


FAILING = textwrap.dedent('''\
    import torch


    @torch.compile(fullgraph=True)
    def get_labels(x):
        if x.sum() > 5:
            return x + 1
        return x - 1


    @torch.compile
    def step(pos, k):
        cells = torch.arange(k.max())
        best = pos.min().item()
        return pos * 0.9 + cells.sum() + best


    try:
        get_labels(torch.ones(8))
    except Exception as e:
        print("caught", type(e).__name__)
    for _ in range(3):
        step(torch.ones(1000, 4), torch.tensor([3, 4]))
''')


def test_a_functions_error_and_each_break_are_told_once(tmp_path):
    """A fullgraph function whose branch fails (the program catches it); a step whose data-dependent reads break."""
    (tmp_path / "swarm.py").write_text(FAILING)
    proc = run_cli("run", "-o", tmp_path / "out", "--no-replay", "--no-warm", "swarm.py", cwd=tmp_path, env=ENV)
    assert proc.returncode == 0 and "caught Unsupported" in proc.stdout, proc.stderr
    assert proc.stderr.count("get_labels: error: Unsupported: Data-dependent branching\n") == 1
    assert proc.stderr.count("Hint: Use `torch.cond`") == 1 and "get_labels: get_labels" not in proc.stderr
    a = analyze(load(tmp_path / "out" / "swarm.json"))
    sites = [(b.line, b.cause, b.flag) for b in a.function("step").code.breaks]
    assert sites == [(line_of(a, text), "item", "dynamo.capture_scalar_outputs=True")
                     for text in ("torch.arange(k.max())", "pos.min().item()")]
    html = (tmp_path / "out" / "swarm.html").read_text()
    assert html.count("Hint: Use `torch.cond`") == 1
    assert re.search(r"<summary>the rest of the message</summary><pre>[^<]*Hint: Use `torch.cond`", html)


def test_a_large_program_gives_a_page_bounded_by_what_it_shows_each_line_once_per_kernel(tmp_path, monkeypatch):
    """The stable-fluids program of bench/large_program.py, small: its helpers in solver.py, inlined from several call
    sites and in a loop Dynamo unrolls, fused into one kernel of thousands of lines."""
    proc = run_cli("run", "-o", tmp_path, "--no-replay", "--no-warm", "samples/programs/fluid/fluid.py", "--size", 16,
                   "--sweeps", 1, "--frames", 4, "--still")
    assert proc.returncode == 0 and "done: 4 frames" in proc.stdout, proc.stderr
    a = analyze(load(tmp_path / "fluid.json"))
    (f,) = a.program.functions
    chains = {}  # (file, line): the call chains that reach it, a verdict each
    for e in f.code.lines:
        chains.setdefault((e.file, e.line), []).append(e.via)
    assert any(len(via) > 1 and file.endswith("solver.py") for (file, _), via in chains.items())
    page = (tmp_path / "fluid.html").read_text()
    listed = re.findall(r'<details class="kernel".*\n<summary>.*· lines ([^<]*)</summary>', page)
    assert listed and all(len(set(lines.split(", "))) == len(lines.split(", ")) for lines in listed)
    # its kernel's code and the output code are cut, each cut said; the page is a small part of the one that shows all
    assert "more lines of its" in page and "lines not shown here: the whole is in the JSON record" in page
    assert "Your source, line by line" in page and "solver.py" in page
    monkeypatch.setattr(sections, "KERNEL_LINES", 10**9)
    monkeypatch.setattr(sections, "OUTPUT_CODE_LINES", 10**9)
    assert len(page) < len(renderer("html").program(a)) / 3
