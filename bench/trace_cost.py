"""What the trace pass costs ``inspector run`` on a program whose second call recompiles: its wall time against the
bare run, and against ``inspector run --no-trace``, alternating, in one run of this script.

    python bench/trace_cost.py [PROGRAM] [ARGS...] [--repeats 5]

Default: tests/programs/trace_pass.py (the second call of each of its functions compiles again: the trace pass must
leave that call alone and trace a later one). Every command runs with Inductor's FX graph cache and AOTAutograd's
cache off (``TORCHINDUCTOR_FX_GRAPH_CACHE=0``, ``TORCHINDUCTOR_AUTOGRAD_CACHE=0``), as capture runs them, so the bare
run compiles as much as the inspected one; replay is off where ``inspector run`` has it (``--no-replay``). One untimed
run of each warms the C++ compiler's cache. Then, ``--repeats`` times, alternately: the bare run, ``inspector run``
and ``inspector run --no-trace``. Prints each one's median wall and CPU time (user and system of all its
processes, the C++ compiler's included: what a busy machine inflates less) with their spread (lowest to highest),
and the ratios measured within each round, their median and spread, beside the ratio of the medians; the target is
``inspector run`` within 1.25x of the bare run.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHES_OFF = {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
TARGET = 1.25


def wall(command):
    """(wall seconds, CPU seconds: user and system, its processes' all) ``command`` took, run from the repository
    root with the caches off."""
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, **CACHES_OFF))
    return time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def replay_off():
    """``--no-replay`` where ``inspector run`` has it, else nothing (there is no replay to turn off)."""
    helped = subprocess.run([sys.executable, "-m", "inspector", "run", "--help"], cwd=ROOT, capture_output=True,
                            text=True).stdout
    return ["--no-replay"] if "--no-replay" in helped else []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", nargs="*", default=["tests/programs/trace_pass.py"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as out:
        run = [sys.executable, "-m", "inspector", "run", "-o", out, *replay_off()]
        commands = {"bare": [sys.executable, *args.program], "inspector run": [*run, *args.program],
                    "inspector run --no-trace": [*run, "--no-trace", *args.program]}
        for command in commands.values():
            wall(command)
        times = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(wall(command))
    print(f"{' '.join(args.program)}: {args.repeats} repeats, alternating; FX graph and AOTAutograd caches off")
    for name, values in times.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        print(f"  {name:<26} wall median {statistics.median(walls):6.2f} s (spread {min(walls):.2f} to "
              f"{max(walls):.2f} s), CPU median {statistics.median(cpus):6.2f} s (spread {min(cpus):.2f} to "
              f"{max(cpus):.2f} s)")
    for kind, index in (("wall", 0), ("CPU", 1)):
        _ratios(kind, [(b[index], o[index], n[index]) for b, o, n in zip(*times.values())])


def _ratios(kind, rounds):
    """The ratios of one round's runs (bare, inspector run, --no-trace), their median and spread over the rounds."""
    ours = [o / b for b, o, _ in rounds]
    traced = [o / n for _, o, n in rounds]
    bare, inspected = (statistics.median(r[i] for r in rounds) for i in (0, 1))
    print(f"{kind}: inspector run / bare run {statistics.median(ours):.2f}x, median of the rounds' ratios "
          f"(ratio of the medians {inspected / bare:.2f}x; rounds: {min(ours):.2f}x to "
          f"{max(ours):.2f}x; target <= {TARGET}x: {'met' if statistics.median(ours) <= TARGET else 'NOT met'}); "
          f"the trace pass, inspector run / --no-trace: {statistics.median(traced):.2f}x (rounds: "
          f"{min(traced):.2f}x to {max(traced):.2f}x)")


if __name__ == "__main__":
    main()
