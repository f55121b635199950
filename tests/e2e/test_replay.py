"""`inspector run`'s replay (real compiles): after the program, each compiled function timed eagerly and compiled on
copies of one steady call's arguments, printing nothing and leaving the random state as the program left it; a
function that changes its input is not measured, with why."""

import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
from inspector.analysis import analyze
from inspector.record import load

PROGRAM = "tests/programs/replay_subject.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(the bare run, the run under inspector, its analysis): the program run once each way."""
    out = tmp_path_factory.mktemp("replay")
    bare = subprocess.run([sys.executable, PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=600)
    inspected = run_cli("run", "--budget", 1, "--no-warm", "-o", out, PROGRAM)
    assert bare.returncode == 0 and inspected.returncode == 0, inspected.stderr
    return bare, inspected, analyze(load(out / "replay_subject.json"))


def test_the_replay_times_eager_and_compiled_calls_on_a_steady_calls_copies(runs):
    _, inspected, a = runs
    noisy = next(f for f in a.program.functions if f.id == "noisy")
    r = noisy.replay
    assert r is not None and r.why is None, r
    assert r.eager_s > 0 and r.compiled_s > 0 and r.rounds >= 1 and r.copied_bytes == 1000 * 4
    # the copies are of a call that ran compiled code: not the one that compiled
    assert r.call != noisy.run.compiled_at and r.compiles == 0
    # its figures agree with each other, and the first screen says them
    assert r.saved_s == pytest.approx(r.calls * (r.eager_s - r.compiled_s))
    assert r.calls == noisy.run.calls and r.compile_s == noisy.run.compile_s
    assert "Compiling noisy " in inspected.stderr and f"call {r.call}'s arguments" in inspected.stderr


def test_the_replay_prints_nothing_and_leaves_the_random_state_as_the_program_left_it(runs):
    bare, inspected, _ = runs
    # the program prints inside the replayed function and draws at exit (its atexit handler: the replay runs after)
    assert inspected.stdout == bare.stdout
    assert bare.stdout.count("noisy ran") == 6 and "draws at exit:" in bare.stdout


def test_a_function_called_twice_is_replayed_on_its_second_calls_copies(runs):
    """Its first call compiled, inspector's trace took its second: that call's copies are still a compiled call's."""
    _, _, a = runs
    twice = next(f for f in a.program.functions if f.id == "twice")
    assert twice.run.calls == 2 and twice.run.traced_call == 2
    assert twice.replay.why is None and twice.replay.call == 2 and twice.replay.eager_s > 0, twice.replay


def test_a_function_that_changes_its_input_is_not_measured_and_says_why(runs):
    _, inspected, a = runs
    changed = next(f for f in a.program.functions if f.id == "doubled_in_place")
    assert changed.replay is not None and changed.replay.eager_s is None
    assert "changes its arguments" in changed.replay.why
    assert changed.replay.needed_s == pytest.approx(changed.run.compile_s / changed.replay.calls)
    assert "Whether compiling doubled_in_place paid: not measured: it changes its arguments" in inspected.stderr
    assert f"To pay in this run, each of its {changed.replay.calls} compiled calls (" in inspected.stderr


def test_a_tensor_subclass_whose_clone_gives_a_plain_tensor_is_copied_as_its_own_type():
    """torch guards on a tensor's type: a copy of another type would make the replay compile (EvoTorch's
    ReadOnlyTensor clones to a plain tensor)."""
    import torch

    from inspector.probe.replay import copied

    class ReadOnly(torch.Tensor):
        def clone(self, *args, **kwargs):
            return super().clone(*args, **kwargs).as_subclass(torch.Tensor)

    x = torch.arange(6.0).reshape(2, 3).as_subclass(ReadOnly)
    assert type(x.detach().clone()) is torch.Tensor  # what the copy would be without keeping its type
    y = copied(x)
    assert type(y) is ReadOnly and y is not x and torch.equal(y.as_subclass(torch.Tensor), x.as_subclass(torch.Tensor))
    assert y.data_ptr() != x.data_ptr()
