"""What finding a program's hot functions costs ``inspector run`` on programs that compile nothing yet: the sampling
and the watch alone against the bare run (target: at most 1.3x), and the whole of ``inspector run`` at its default
budgets, the experiment's compiles included, against the bare run (target: at most the bare run + 90 s).

    python bench/hotspots_cost.py [PROGRAM ...] [--repeats 5]

Default: samples/programs/plain_ga.py and the four programs of tests/programs/plain/. Per program, ``--repeats``
rounds, each running, in turn: the bare program (``python PROGRAM``), the program under the sampler and the watch
alone (``inspector.probe.hotspots`` in this script's ``--profile-only`` mode: no torch, no experiment) and ``inspector
run PROGRAM``. Prints each one's median wall time with its spread (lowest to highest), the ratio of the profiled run
to the bare one within each round (median and spread) in wall time and in CPU time (user + system of the process and
its children: what the sampler itself costs, which other work on the machine moves far less than the wall time) and
what ``inspector run`` added to the bare run (median and spread). Run it on a quiet machine.
"""

import argparse
import io
import os
import resource
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ["samples/programs/plain_ga.py", *sorted(str(p.relative_to(ROOT))
                                                   for p in (ROOT / "tests/programs/plain").glob("*.py"))]
PROFILED_AT_MOST, ADDED_AT_MOST = 1.3, 90.0


def profile_only(program):
    """Run ``program`` here under the sampler and the watch, as the probe does before any experiment."""
    sys.path.insert(0, str(ROOT))
    from inspector.probe.hotspots import Hotspots
    path = os.path.abspath(program)
    hot = Hotspots([os.path.dirname(path)])
    sys.argv = [path]
    sys.path[0] = os.path.dirname(path)
    hot.install()
    try:
        with redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    finally:
        hot.stop()


def timed(command):
    """Wall and CPU seconds of ``command`` (CPU: user + system of its processes)."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def spread(values):
    return f"{statistics.median(values):.2f} (from {min(values):.2f} to {max(values):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("programs", nargs="*", default=PROGRAMS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profile_only:
        return profile_only(args.profile_only)
    with tempfile.TemporaryDirectory() as out:
        for program in args.programs:
            runs: dict[str, list[tuple[float, float]]] = {"bare": [], "profiled": [], "inspector run": []}
            for _ in range(args.repeats):
                runs["bare"].append(timed([sys.executable, program]))
                runs["profiled"].append(timed([sys.executable, __file__, "--profile-only", program]))
                runs["inspector run"].append(timed([sys.executable, "-m", "inspector", "run", "-o", out, program]))
            wall = [p[0] / b[0] for p, b in zip(runs["profiled"], runs["bare"])]
            cpu = [p[1] / b[1] for p, b in zip(runs["profiled"], runs["bare"])]
            added = [i[0] - b[0] for i, b in zip(runs["inspector run"], runs["bare"])]
            print(f"{program}: " + "; ".join(f"{k} {spread([w for w, _ in v])} s" for k, v in runs.items()))
            print(f"  profiled / bare: wall {spread(wall)}x, CPU {spread(cpu)}x (target at most "
                  f"{PROFILED_AT_MOST}x); inspector run adds {spread(added)} s (target at most {ADDED_AT_MOST:.0f} s)")


if __name__ == "__main__":
    main()
