"""`inspector run` on programs whose calls torch runs in ways of their own (tests/programs, issue 30): the trace pass
leaves a compiling call alone, no frame of inspector's reaches the program's output, a compiled module's other
methods are told. Each program runs once; what inspector says is checked against torch's own account of the same run
(TORCH_LOGS, its counters as the program prints them) or against the bare run."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, package_frames, run_cli
from inspector.analysis import analyze
from inspector.model import NotTraced, UncompiledMethod
from inspector.record import load

PROGRAMS = ROOT / "tests" / "programs"
BARE_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TORCH_LOGS", "TORCH_TRACE")}


def _inspected(out, program, *options, env=None):
    """(the CompletedProcess of ``inspector run`` on a test program, the Analysis of its record)."""
    proc = run_cli("run", "-o", out, "--no-replay", *options, PROGRAMS / program, env=env)
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
                assert u.guard and any(u.guard in reason for reason in again.reasons)
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
def raising(tmp_path_factory):
    bare = subprocess.run([sys.executable, PROGRAMS / "unittest_raises.py"], capture_output=True, text=True,
                          cwd=ROOT, env=BARE_ENV)
    proc, a = _inspected(tmp_path_factory.mktemp("raising"), "unittest_raises.py", "--no-profile", env=BARE_ENV)
    return bare, proc, a


def test_the_programs_tracebacks_and_torchs_logged_stacks_are_the_bare_runs(raising):
    bare, proc, a = raising
    assert proc.returncode == bare.returncode == 1 and proc.stdout == bare.stdout
    # the bare run shows what is compared: unittest's traceback of the compiled function's error, and torch's
    # "User code traceback" of the graph break it logs
    assert "ValueError: too large" in bare.stderr and "User code traceback:" in bare.stderr
    ours = _normalised(proc.stderr)
    assert ours.startswith(_normalised(bare.stderr)) and not package_frames(proc.stderr)
    assert ours[len(_normalised(bare.stderr)):].startswith("shifted: ")  # then inspector's summary
    (f,) = a.program.functions
    assert (f.run.calls, f.run.error_call) == (5, 2) and f.run.traced_call  # tracked and traced all the same


@pytest.fixture(scope="module")
def module_method(tmp_path_factory):
    return _inspected(tmp_path_factory.mktemp("module_method"), "module_method.py", "--no-profile")


def test_a_compiled_modules_other_method_is_told_as_called_and_uncompiled(module_method):
    proc, a = module_method
    assert proc.returncode == 0, proc.stderr
    # torch's counters, as the program printed them: solve's calls compiled nothing, forward's compiled
    solve_calls, solve_graphs = map(int, re.search(r"solve calls (\d+) graphs (\d+)", proc.stdout).groups())
    forward_calls, forward_graphs = map(int, re.search(r"forward calls (\d+) graphs (\d+)", proc.stdout).groups())
    assert solve_graphs == 0 < forward_graphs
    (f,) = a.program.functions
    assert f.uncompiled == (UncompiledMethod("solve", solve_calls),) and f.run.calls == forward_calls
    assert (f"solve was called {solve_calls} times on the compiled module and ran uncompiled; compile it: "
            "torch.compile(module.solve) or call the module (forward)") in proc.stderr


@pytest.fixture(scope="module")
def children(tmp_path_factory):
    return _inspected(tmp_path_factory.mktemp("children"), "children.py", "--no-profile", env=BARE_ENV)


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
        # a row per followed child, with torch's own count of the graphs it compiled there
        assert c.followed and c.start_method == "spawn" and c.functions == [f"step [{c.name}]"]
        f = a.function(f"step [{c.name}]")
        assert (f.process, f.run.calls, len(f.code.graphs)) == (c.name, 3, graphs)
        assert f"child process {c.name} (pid {c.pid}, started by spawn, exit status 0" in proc.stderr
    assert {c.start_method for c in p.children} == {"spawn", "fork"}
    assert a.function("step").run.calls == 0 and not a.function("step").run.shares_code  # the program's own
