"""A rerun's compile (`inspector report`, issue 39): each compiled variant compiled again in fresh processes with
torch's caches warm, in inspector's own cache folder, never the user's (real compiles)."""

import os

from conftest import run_cli
from inspector.analysis import analyze
from inspector.record import load
from inspector.render.words import warm_compile


def test_a_reruns_compile_is_measured_in_inspectors_own_cache_and_the_users_is_left_alone(tmp_path):
    user, own = tmp_path / "user-cache", tmp_path / "xdg"
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(user), XDG_CACHE_HOME=str(own))
    proc = run_cli("report", "tests/samples/library_call.py", "-n", 500, "--budget", 0.02, "--rounds", 0,
                   "--no-profile", "--no-try-fixes", "--no-rewrites", "-v", "numpy", "-v", "*-compiled-cpu",
                   "-o", tmp_path / "out", env=env)
    assert proc.returncode == 0, proc.stderr
    record = load(tmp_path / "out" / "library_call.json")
    a = analyze(record)
    cache = own / "inspector" / "torch"
    assert f"torch's caches in {cache}" in proc.stderr
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
    # the measurement filled inspector's folder; the user's holds only what capture wrote (its caches off)
    assert (cache / "fxgraph").is_dir() and not {"fxgraph", "aotautograd"} & {p.name for p in user.iterdir()}
