"""A rerun's compile as inspector measures it against a bare script's own rerun, in fresh processes.

    python bench/warm.py [SAMPLE ...] [--repeats 5] [--population N] [--program PROGRAM ARGS...]

For each compiled CPU variant of each sample (default: samples/trig.py and samples/poly.py), in a cache folder of
its own (torch's caches filled once by each side first): ``--repeats`` times, alternately, a bare script in a fresh
process that compiles the variant's function and calls it (what it pays: its first call minus its steady call,
torch's compiler start included), and inspector's --warm probe in a fresh process (its compile plus the compiler
start it measures apart, as `inspector report` says them). For the program (default: samples/programs/ga.py 3000
8), the same, alternately: the program run bare by a script that sums torch's own compile times when it ends, and
inspector's rerun probe (inspector.probe.rerun: the compile of every frame, as `inspector run` says them; the first
pays the compiler's start, as the bare run's does). Prints both medians, their spread, and the ratio of the medians
(target: within 1.25x either way).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis.variants import warm  # noqa: E402
from inspector.probe.messages import PROBE, WarmResult, read  # noqa: E402
from inspector.raw import PROVENANCE_LEVEL, RawWarm  # noqa: E402

BARE = """
import importlib.util, json, statistics, sys, time
import numpy as np, torch
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec = importlib.util.spec_from_file_location("sample", path)
sample = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sample)
pop = sample.population(n, np.random.default_rng(0))
data = torch.from_numpy(pop) if name.startswith("fitness_torch") else pop
fn = torch.compile(getattr(sample, name))
start = time.perf_counter()
fn(data)
first = time.perf_counter() - start
steady = []
for _ in range(3):
    start = time.perf_counter()
    fn(data)
    steady.append(time.perf_counter() - start)
print(json.dumps({"compile_s": first - statistics.median(steady)}))
"""
PROGRAM = """
import runpy, sys, torch
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
metrics = torch._dynamo.utils.get_compilation_metrics()
print("compile_s", sum(m.entire_frame_compile_time_s or 0.0 for m in metrics))
"""
VARIANTS = {"numpy-compiled-cpu": "fitness_numpy", "torch-compiled-cpu": "fitness_torch"}


def bare(sample, function, n, env):
    """What a bare rerun's first call paid over its steady call, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", BARE, sample, function, str(n)], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])["compile_s"]


def inspected(sample, vid, n, env, work):
    """inspector's --warm probe's compile of ``vid`` plus the compiler start it measured, in a fresh process."""
    results = Path(work) / "warm.jsonl"
    results.write_text("")
    subprocess.run([sys.executable, "-m", "inspector.probe", sample, "--results", str(results), "--outputs", work,
                    "--warm", "--only", vid, "--population", str(n)], env=env, check=True, capture_output=True)
    message = next(m for line in results.read_text().splitlines() if isinstance(m := read(line, PROBE), WarmResult))
    w = warm(RawWarm.from_json({k: v for k, v in message.to_json().items() if k not in ("type", "id")}))
    return (w.compile_s or 0.0) + (w.compiler_start_s or 0.0)


def bare_program(program, env):
    """torch's own compile time over a bare run of ``program`` (its argv), in a fresh process."""
    done = subprocess.run([sys.executable, "-c", PROGRAM, *program], env=env, check=True, capture_output=True,
                          text=True)
    return float(done.stdout.splitlines()[-1].split()[1])


def inspected_program(program, env, work):
    """inspector's rerun probe's compile of every frame (the first paying the compiler's start), in a fresh
    process, with capture's provenance level, as `inspector run` reruns it (inspector.collect.program)."""
    results = Path(work) / "rerun.json"
    subprocess.run([sys.executable, "-m", "inspector.probe.rerun", "--results", str(results), *program],
                   env=dict(env, INDUCTOR_PROVENANCE=str(PROVENANCE_LEVEL)), check=True, capture_output=True)
    found = json.loads(results.read_text())
    return sum(m.get("entire_frame_compile_time_s", 0.0) for m in found["metrics"])


def _said(label, times, repeats):
    b, s = statistics.median(times["bare"]), statistics.median(times["inspector"])
    print(f"{label}: bare rerun {b * 1e3:.0f} ms ({min(times['bare']) * 1e3:.0f} to {max(times['bare']) * 1e3:.0f}), "
          f"inspector's warm compile {s * 1e3:.0f} ms ({min(times['inspector']) * 1e3:.0f} to "
          f"{max(times['inspector']) * 1e3:.0f}), {repeats} each: {s / b:.2f}x", flush=True)


def _alternate(repeats, sides):
    """{side: [seconds]} of ``sides`` ({side: measure()}) measured ``repeats`` times each, taking turns."""
    times = {side: [] for side in sides}
    for i in range(repeats):
        for side in list(sides) if i % 2 == 0 else list(sides)[::-1]:
            times[side].append(sides[side]())
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="*", default=["samples/trig.py", "samples/poly.py"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--population", "-n", type=int, default=100_000)
    parser.add_argument("--program", nargs="+", default=["samples/programs/ga.py", "3000", "8"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as work:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(Path(work) / "cache"),
                   TRITON_CACHE_DIR=str(Path(work) / "cache" / "triton"),
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        for sample in args.samples:
            for vid, function in VARIANTS.items():
                if f"def {function}(" not in Path(sample).read_text():  # a sample without that variant
                    continue
                sides = {"bare": lambda s=sample, f=function: bare(s, f, args.population, env),
                         "inspector": lambda s=sample, v=vid: inspected(s, v, args.population, env, work)}
                [measure() for measure in sides.values()]  # torch's caches filled
                _said(f"{sample} {vid}", _alternate(args.repeats, sides), args.repeats)
        sides = {"bare": lambda: bare_program(args.program, env),
                 "inspector": lambda: inspected_program(args.program, env, work)}
        [measure() for measure in sides.values()]
        _said(" ".join(args.program), _alternate(args.repeats, sides), args.repeats)


if __name__ == "__main__":
    main()
