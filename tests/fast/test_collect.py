"""The parent side of a run: the probe child is killed whenever reading it fails, and outputs are cross-checked.

The children here are small Python scripts that write what a probe might (no torch): the collect side only sees
a process and its stream.
"""

import os
import sys
import time

import numpy as np
import pytest

from inspector.collect.crosscheck import compare
from inspector.collect.process import Clock, ProbeProcess, ProtocolError, how_it_ended
from inspector.probe.messages import Header, Start, Unknown


def child(tmp_path, body):
    """A ProbeProcess running ``body`` (Python; ``results`` is the path of its stream), then sleeping."""
    results = tmp_path / "results.jsonl"
    results.touch()
    script = f"import json, sys, time\nresults = {str(results)!r}\n{body}\ntime.sleep(60)\n"
    return ProbeProcess([sys.executable, "-c", script], dict(os.environ), tmp_path / "log", results)


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_gone(pid, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if gone(pid):
            return True
        time.sleep(0.02)
    return False


WRITE = "open(results, 'a').write({text!r}); sys.stdout.flush()"


def test_messages_arrive_as_written_and_the_child_is_killed_on_leaving(tmp_path):
    probe = child(tmp_path, WRITE.format(text='{"type": "header", "n": 1}\n{"type": "start", "id": "a"}\n'))
    with probe:
        got = []
        for message in probe.messages(idle_s=0.01):
            if message is not None:
                got.append(message)
            if len(got) == 2:
                break
        pid = probe.pid
        assert probe.running()
    assert got == [Header.from_json({"n": 1}), Start(id="a", absent=frozenset({"time"}))]
    assert got[0].other == {"n": 1}  # a key the message's type does not know is kept, as a record's
    assert wait_gone(pid)


def test_a_line_that_is_not_json_kills_the_child(tmp_path):
    probe = child(tmp_path, WRITE.format(text='{"type": "header"}\nTraceback (most recent call last)\n'))
    with pytest.raises(ProtocolError, match="not JSON"):
        with probe:
            pid = probe.pid
            for _ in probe.messages(idle_s=0.01):
                pass
    assert wait_gone(pid)


def test_an_exception_in_the_callers_code_kills_the_child(tmp_path):
    probe = child(tmp_path, WRITE.format(text='{"type": "header"}\n'))
    with pytest.raises(ZeroDivisionError):
        with probe:
            pid = probe.pid
            for message in probe.messages(idle_s=0.01):
                if message:
                    raise ZeroDivisionError("a bug in a progress callback, say")
    assert wait_gone(pid)


def test_the_whole_session_is_killed_with_the_child(tmp_path):
    """OpenMP threads, compiler jobs, a grandchild process: all go with the probe."""
    probe = child(tmp_path, "import subprocess\n"
                            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                            "open(results, 'a').write(json.dumps({'type': 'grandchild', 'pid': p.pid}) + '\\n')")
    with probe:
        grandchild = next(m for m in probe.messages(idle_s=0.01) if m).data["pid"]  # an Unknown kind
    assert wait_gone(grandchild)


def test_a_child_that_exits_is_read_to_its_end_and_a_half_line_is_dropped(tmp_path):
    results = tmp_path / "results.jsonl"
    results.touch()
    script = (f"open({str(results)!r}, 'a').write('{{\"type\": \"a\"}}\\n{{\"type\": \"b\"}}\\n{{\"type\": \"c')\n"
              "raise SystemExit(3)")
    with ProbeProcess([sys.executable, "-c", script], dict(os.environ), tmp_path / "log", results) as probe:
        got = [m for m in probe.messages(idle_s=0.01) if m]
    assert got == [Unknown("a", {}), Unknown("b", {})]
    assert how_it_ended(probe.returncode) == "exit code 3"
    assert how_it_ended(-9) == "killed by SIGKILL"


def test_the_clock_runs_only_while_a_variant_runs():
    clock = Clock(0.05)
    assert not clock.expired()
    clock.start()
    time.sleep(0.08)
    assert clock.expired()
    clock.stop()
    assert not clock.expired()


@pytest.mark.parametrize("got, ok, message", [
    ([1.0, 2.0, np.inf], True, None),
    ([1.0, 2.0 + 1e-6, np.inf], True, None),
    ([1.0, 2.1, np.inf], False, "1 of 3 individuals differ (first: #1: expected 2.0, got 2.1)"),
    ([1.0, np.nan, np.inf], False, "1 of 3 individuals differ (first: #1: expected 2.0, got nan)"),
])
def test_cross_check_is_tolerant_and_inf_aware_and_names_the_first_differences(got, ok, message):
    assert compare(np.array([1.0, 2.0, np.inf]), np.array(got)) == (ok, message)
