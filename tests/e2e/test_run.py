"""`inspector run PROGRAM`: any program as it is (real compiles): its output and exit status kept, its compiled
functions found wherever torch.compile was used, the report written however the program ends."""

import os
import signal
import subprocess
import sys
import textwrap

from conftest import ROOT, line_of, run_cli, tlparse
from inspector.analysis import analyze
from inspector.record import load

HELPER = '''\
import torch


@torch.compile
def shifted(x):
    return torch.relu(x - 0.5) * 2
'''
ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # inspector importable from another folder, installed or not
MESSY = textwrap.dedent('''\
    import sys
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
    if sys.argv[1] == "forever":
        while True:
            compiled_helper(x)
            time.sleep(0.01)
    if sys.argv[1] == "raise":
        raise ValueError("boom")
    sys.exit(int(sys.argv[1]))
''')


def test_a_ga_program_runs_as_it_is_and_the_report_shows_what_compiled(tmp_path):
    proc = run_cli("run", "-o", tmp_path, "samples/programs/ga.py", 3000, 8)
    assert proc.returncode == 0, proc.stderr
    # the program's own output, as it prints it, then the summary on stderr
    assert proc.stdout.count("best of this generation") == 8 and "done: 8 generations, population 4,500" in proc.stdout
    assert "fitness" in proc.stderr and f"wrote {tmp_path / 'ga.html'}" in proc.stderr
    a = analyze(load(tmp_path / "ga.json"))
    (f,) = a.variants
    assert (f.id, f.run.calls, a.program.exit) == ("fitness", 8, 0)
    item = line_of(a, "best = value.min().item()")
    assert item in {b.line for b in f.breaks}
    # both recompilations, each at its call with the guard that failed
    said = {c.call: " ".join(c.reasons) for c in f.run.recompiles}
    assert "size mismatch at index 0. expected 3000, actual 4500" in said[5]
    assert any("___stack0 ==" in text and "after a graph break" in text for text in said.values())
    verdicts = {e.line: e.status for e in f.lines}
    for text in ("value = (pop**2", "excess = torch.clamp", "value = value + penalty"):
        assert verdicts[line_of(a, text)] == "parallel", text
    assert f.timing.median_s > 0 and f.run.steady_calls >= 1 and f.run.profiled_call and f.time_split.kernels_s > 0
    html = (tmp_path / "ga.html").read_text()
    assert "<code>fitness</code>" in html and "at call 5" in html and "Your source, line by line" in html
    tlparse(tmp_path / "ga.trace" / "torch_trace.log", tmp_path / "ga.tlparse")


def test_methods_and_functions_compiled_anywhere_are_found_and_the_exit_status_is_kept(tmp_path):
    (tmp_path / "messy.py").write_text(MESSY)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    proc = run_cli("run", "-o", tmp_path / "out", "messy.py", 3, cwd=tmp_path, env=ENV)
    assert proc.returncode == 3, proc.stderr
    a = analyze(load(tmp_path / "out" / "messy.json"))
    # in the order the program compiled them: the imported module's decorator first
    assert [(v.id, v.run.calls) for v in a.variants] == [("shifted", 3), ("Scorer.score", 3), ("helper", 3)]
    assert all(e.status == "parallel" for v in a.variants for e in v.lines)
    assert {e.file for e in a.variant("shifted").lines} == {"helper_mod.py"}
    # a program that raises: Python's traceback (not inspector's frames), exit 1, the report still written
    failed = run_cli("run", "-o", tmp_path / "out", "-m", "messy", "raise", cwd=tmp_path, env=ENV)
    assert failed.returncode == 1 and "ValueError: boom" in failed.stderr
    assert "inspector/probe" not in failed.stderr and "runpy" not in failed.stderr
    assert analyze(load(tmp_path / "out" / "messy.json")).program.exit == 1


def test_ctrl_c_reaches_the_program_and_the_report_keeps_what_ran(tmp_path):
    (tmp_path / "messy.py").write_text(MESSY)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "run", "-o", "out", "messy.py", "forever"],
                            cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does: to inspector and the program alike
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # the program too: it is in inspector's session
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    a = analyze(load(tmp_path / "out" / "messy.json"))
    assert a.program.exit == 130 and a.variant("helper").run.calls > 3
