"""A rerun's compile (issue 39): each compiled variant of `inspector report` compiled again in fresh processes with
torch's caches warm, in inspector's own cache folder, never the user's; a rerun of `inspector run` loading its graphs
from there, with what the first run captured (real compiles)."""

import dataclasses
import os

import pytest

from conftest import ROOT, run_cli
from inspector.analysis import analyze
from inspector.record import load
from inspector.render.words import warm_compile


@pytest.fixture(scope="module")
def xdg(tmp_path_factory):
    """A cache folder (XDG_CACHE_HOME) the module's tests share, empty when the first starts: the second finds the
    C++ compiler checks Inductor makes once per cache folder (its graphs are not the first's)."""
    return tmp_path_factory.mktemp("xdg")


def test_a_reruns_compile_is_measured_in_inspectors_own_cache_and_the_users_is_left_alone(tmp_path, xdg):
    user, own = tmp_path / "user-cache", xdg
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(user), XDG_CACHE_HOME=str(own))
    proc = run_cli("report", "tests/samples/library_call.py", "-n", 500, "--budget", 0.02, "--rounds", 0,
                   "--no-profile", "--no-try-fixes", "--no-rewrites", "-v", "numpy", "-v", "numpy-compiled-cpu",
                   "-o", tmp_path / "out", env=env)
    assert proc.returncode == 0, proc.stderr
    record = load(tmp_path / "out" / "library_call.json")
    a = analyze(record)
    cache = own / "inspector" / "torch"
    assert f"torch's caches in {cache}" in proc.stderr
    assert [v.id for v in record.variants if v.compiled] == ["numpy-compiled-cpu"]
    for raw in (v for v in record.variants if v.compiled):
        # torch's own account of the compile in the last process: every graph found in Inductor's FX graph cache,
        # which the first process (a fresh cache folder) filled
        warm = raw.warm
        assert warm.processes == 2 and warm.cache_dir == str(cache) and warm.metrics, raw.id
        assert all(m["inductor_fx_local_cache_hit_count"] and not m["inductor_fx_local_cache_miss_count"]
                   for m in warm.metrics)
        t = a.variant(raw.id).timing
        assert t.warm.phases.cache == {"hit": len(warm.metrics)} and t.warm.compile_s > 0
        assert t.warm.compile_s == sum(m["entire_frame_compile_time_s"] for m in warm.metrics)
        assert warm.compiler_start_s > 0 and warm.first_call_s > warm.steady_s
        assert a.variant(raw.id).speedups.warm_break_even is not None
        assert warm_compile(t.warm).replace("'", "&#39;") in (tmp_path / "out" / "library_call.html").read_text()
    # the measurement filled inspector's folder, and capture built its kernels there too: the user's was never made
    assert (cache / "fxgraph").is_dir() and not user.exists()


PROGRAM = '''\
import torch


@torch.compile
def score(x):
    return (torch.sin(x) * 2 + 1).sum(1)


x = torch.rand(20000, 4)
for _ in range(4):
    score(x)
print("done")
'''


def test_a_rerun_under_inspector_run_loads_its_graphs_with_what_the_first_run_captured(tmp_path, xdg):
    (tmp_path / "prog.py").write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(xdg))

    def run(n, *options):
        proc = run_cli("run", "-o", tmp_path / str(n), "--no-hotspots", *options, "prog.py", cwd=tmp_path, env=env)
        assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
        record = load(tmp_path / str(n) / "prog.json")
        return proc, record, record.variants[0], analyze(record).program.functions[0]

    _, _, cold, first = run(0, "--no-warm", "--no-replay")
    proc, record, raw, f = run(1, "--budget", 0.3)
    # torch found every graph in its caches, in inspector's folder; what only a compile shows is the first run's
    assert [g.fx_graph_cache for g in cold.capture.graphs] == ["miss"] and not cold.capture.graphs[0].kept
    (g,), (c,) = raw.capture.graphs, cold.capture.graphs
    assert g.fx_graph_cache == "hit" and g.kept == {"metrics": c.metrics, "fx_graph_cache": "miss"}
    assert (g.nests, g.fusion, g.kernel_stack_traces) == (c.nests, c.fusion, c.kernel_stack_traces) and g.nests
    assert [m.but(seconds=0) for m in raw.capture.machine_code] == [m.but(seconds=0) for m in cold.capture.machine_code]
    assert _page(f) == _page(first)
    # the run's own compile is what a rerun pays: the program is not rerun for it
    assert raw.warm.during_run and "rerunning the program bare" not in proc.stderr
    assert f.timing.warm.compile_s == f.run.compile_s == g.metrics["entire_frame_compile_time_s"]
    assert f.replay.first_compile_s == first.run.compile_s and f.replay.warm is None
    assert "This run found its graphs in torch's caches" in proc.stderr
    assert "torch found the graphs of score in its caches" in (tmp_path / "1" / "prog.html").read_text()
    # --no-cache: torch's caches off, the graph compiled afresh though inspector's folder holds it
    _, _, off, _ = run(2, "--no-cache", "--no-warm", "--no-replay", "--no-trace", "--no-profile")
    assert off.capture.graphs[0].fx_graph_cache != "hit" and not off.capture.graphs[0].kept


def _page(f):
    """What a function's page says of its code, its measured times left out."""
    return ([(e.line, e.status, e.vectorized, e.kernels, e.nests, e.why) for e in f.code.lines],
            [dataclasses.replace(k, cost=None) for k in f.code.kernels])
