"""What the trace pass costs ``inspector run`` on a program whose second call recompiles: its wall time against the
bare run, and against ``inspector run --no-trace``, alternating, in one run of this script.

    python bench/trace_cost.py [PROGRAM] [ARGS...] [--repeats 5]

Default: tests/programs/trace_pass.py (the second call of each of its functions compiles again: the trace pass must
leave that call alone and trace a later one). Every command runs with Inductor's FX graph cache and AOTAutograd's
cache off (``TORCHINDUCTOR_FX_GRAPH_CACHE=0``, ``TORCHINDUCTOR_AUTOGRAD_CACHE=0``), as capture runs them, so the bare
run compiles as much as the inspected one; replay is off where ``inspector run`` has it (``--no-replay``). One untimed
run of each warms the C++ compiler's cache. Then, ``--repeats`` times, alternately: the bare run, ``inspector run``
and ``inspector run --no-trace``. Prints each one's median and spread (lowest to highest) and the ratios of the
medians; the target is ``inspector run`` within 1.25x of the bare run.
"""

import argparse
import os
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
    """Seconds ``command`` took, run from the repository root with the caches off."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, **CACHES_OFF))
    return time.perf_counter() - start


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
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"  {name:<26} median {medians[name]:6.2f} s  (spread {min(values):.2f} to {max(values):.2f} s; "
              f"runs: {', '.join(f'{t:.2f}' for t in values)})")
    ratio = medians["inspector run"] / medians["bare"]
    print(f"inspector run / bare run: {ratio:.2f}x (target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})")
    print(f"inspector run / inspector run --no-trace (the trace pass): "
          f"{medians['inspector run'] / medians['inspector run --no-trace']:.2f}x")


if __name__ == "__main__":
    main()
