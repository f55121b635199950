"""`inspector run` on programs whose calls torch runs in ways of their own (tests/programs, issue 30): the trace pass
leaves a compiling call alone, no frame of inspector's reaches the program's output, spawned children are followed.
Each program runs once; what inspector says is checked against torch's own account of the same run (TORCH_LOGS, its
counters as the program prints them) or against the bare run. The programs one run can hold together are in
test_programs.py."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, package_frames, run_cli
from inspector.analysis import analyze
from inspector.model import NotTraced
from inspector.probe.program import CHILD_NOT_REPLAYED
from inspector.record import load

PROGRAMS = ROOT / "tests" / "programs"
BARE_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TORCH_LOGS", "TORCH_TRACE")}


def _inspected(out, program, *options, args=(), env=None):
    """(the CompletedProcess of ``inspector run`` on a test program given ``args``, the Analysis of its record)."""
    proc = run_cli("run", "-o", out, "--no-replay", "--no-warm", *options, PROGRAMS / program, *args, env=env)
    assert (out / f"{program[:-3]}.json").exists(), proc.stderr
    return proc, analyze(load(out / f"{program[:-3]}.json"))


@pytest.fixture(scope="module")
def trace_pass(tmp_path_factory):
    return _inspected(tmp_path_factory.mktemp("trace_pass"), "trace_pass.py",
                      env=dict(os.environ, TORCH_LOGS="recompiles"))


def test_the_trace_pass_traces_a_call_that_does_not_compile(trace_pass):
    proc, a = trace_pass
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    functions = a.program.functions
    # inspector's recompiles are torch's, as torch logged them in this run
    assert proc.stderr.count("Recompiling function") == sum(len(f.run.recompiles) for f in functions) > 0
    for f in functions:
        compiling = {f.run.compiled_at} | {r.call for r in f.run.recompiles}
        assert f.run.traced_call is not None and f.run.traced_call not in compiling, f.id
        assert f.run.profiled_call and f.run.profiled_call > f.run.traced_call and f.run.profiled_call not in compiling
        assert f.run.untraced and f.run.untraced.count == len(f.run.untraced.first) > 0
        # each call left untraced is one torch compiled during, and the guard said before it is torch's reason
        for u in f.run.untraced.first:
            assert u.call in compiling and u.call < f.run.traced_call
            if u.why == NotTraced.RECOMPILE:
                (again,) = [r for r in f.run.recompiles if r.call == u.call]
                assert u.guard and any(g.text == reason.text for g in u.guard for reason in again.reasons)
        said = f"not traced for the lines that ran as Python: call {f.run.untraced.first[0].call}"
        assert said in proc.stderr and f"call {f.run.traced_call} was traced instead" in proc.stderr
    # one guard fails before the call (checked against torch's cached entries), the other function's own guards hold
    # and the code after its graph break recompiles: the trace stopped as that compile began
    assert {f.run.untraced.first[0].why for f in functions} == {NotTraced.RECOMPILE, NotTraced.COMPILED}


def _normalised(stderr):
    """stderr without what differs from run to run: log records' times and process ids, addresses, test times."""
    stderr = re.sub(r"^([VIWE])\d{4} [\d:.]+ \d+ ", r"\1 ", stderr, flags=re.M)
    stderr = re.sub(r"0x[0-9a-f]+", "0x", stderr)
    return re.sub(r"(Ran \d+ tests?) in [\d.]+s", r"\1", stderr)


@pytest.fixture(scope="module")
def as_it_is(tmp_path_factory):
    """(the bare run, inspector's, its analysis) of a program that prints what Python gives it and raises."""
    bare = subprocess.run([sys.executable, PROGRAMS / "as_it_is.py", "one"], capture_output=True, text=True,
                          cwd=ROOT, env=BARE_ENV)
    proc, a = _inspected(tmp_path_factory.mktemp("as_it_is"), "as_it_is.py", "--no-profile", args=("one",),
                         env=BARE_ENV)
    return bare, proc, a


def test_the_program_sees_what_python_gives_it_and_its_tracebacks_and_torchs_logged_stacks_are_the_bare_runs(
        as_it_is):
    bare, proc, a = as_it_is
    assert proc.returncode == bare.returncode == 1 and proc.stdout == bare.stdout
    # what the program saw: the interpreter's own start-up, not inspector's (no checkout, PYTHONPATH or trace added)
    assert "checkout on the path False" in bare.stdout and "PYTHONPATH None TORCH_TRACE None" in bare.stdout
    # the bare run shows what is compared: unittest's traceback of the compiled function's error, and torch's
    # "User code traceback" of the graph break it logs
    assert "ValueError: too large" in bare.stderr and "User code traceback:" in bare.stderr
    # no frame of inspector's files (a word "inspector" in torch's frames is the checkout's or the virtual
    # environment's path, not a frame of ours), then inspector's summary
    ours = _normalised(proc.stderr)
    assert ours.startswith(_normalised(bare.stderr)) and not package_frames(proc.stderr)
    assert ours[len(_normalised(bare.stderr)):].startswith("shifted: ") and "USDT" not in proc.stderr
    (f,) = a.program.functions
    assert (f.run.calls, f.run.error_call) == (5, 2) and f.run.traced_call  # tracked and traced all the same


@pytest.fixture(scope="module")
def children(tmp_path_factory):
    return _inspected(tmp_path_factory.mktemp("children"), "children.py", "--no-trace", "--no-profile", env=BARE_ENV)


def test_spawned_children_are_followed_a_row_each_and_a_forked_one_is_said_not_to_be(children):
    proc, a = children
    assert proc.returncode == 0 and proc.stdout.endswith("done\n"), proc.stderr
    said = {name: (int(graphs), path) for name, graphs, path in re.findall(r"^(\S+) graphs (\d+) path (.*)$",
                                                                           proc.stdout, flags=re.M)}
    p = a.program
    assert sorted(c.name for c in p.children) == sorted(said)
    for c in p.children:
        graphs, path = said[c.name]
        assert c.exit == 0 and str(ROOT) not in eval(path)  # the child's sys.path is multiprocessing's, not ours
        if c.start_method == "fork":
            assert not c.followed and not c.functions
            assert f"child process {c.name} (pid {c.pid}, started by fork, exit status 0): not followed" in proc.stderr
            continue
        # a row per followed child (a grandchild too), with torch's own count of the graphs it compiled there
        assert c.followed and c.start_method == "spawn" and c.functions == [f"step [{c.name}]"]
        f = a.function(f"step [{c.name}]")
        assert (f.process, f.run.calls, len(f.code.graphs)) == (c.name, 3, graphs)
        assert f"child process {c.name} (pid {c.pid}, started by spawn, exit status 0" in proc.stderr
        assert f.replay.why == CHILD_NOT_REPLAYED
    assert {c.start_method for c in p.children} == {"spawn", "fork"}
    assert [c.name for c in p.children if ":" in c.name] == ["SpawnProcess-1:1"]  # the grandchild
    assert a.function("step").run.calls == 0 and not a.function("step").run.shares_code  # the program's own
    # --no-trace --no-profile: every call is the program's own, none traced or profiled: each after the compile timed
    assert all(f.run.traced_call is None and f.run.profiled_call is None for f in a.program.functions)
    followed = [a.function(name) for c in p.children for name in c.functions]
    assert followed and all(f.run.steady_calls == f.timing.runs == f.run.calls - 1 for f in followed)
