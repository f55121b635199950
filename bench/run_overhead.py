"""What ``inspector run`` adds to a program: its wall time against the program run bare, alternating.

    python bench/run_overhead.py [PROGRAM] [ARGS...] [--repeats 5] [--no-cache]

Default: samples/programs/ga.py 5000 50. A rerun of unchanged code (issue 39 item 5): the bare program with torch's
caches in a folder of its own (``TORCHINDUCTOR_CACHE_DIR``), ``inspector run`` with inspector's cache folder in
another (``XDG_CACHE_HOME``), neither the user's; one untimed run of each fills its folder, so each timed run is a
rerun with torch's caches warm. Then, ``--repeats`` times, alternately: ``python PROGRAM ARGS`` and ``inspector run
PROGRAM ARGS`` (its report written to a temporary folder). Prints both medians, their spread, the program's own run
under inspector, and the overhead: the ratio of the medians, and the lowest and highest ratio of the pairs run back
to back. ``--no-cache``: ``inspector run --no-cache`` (every graph compiled afresh, torch's caches off) against the
same warm bare rerun.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from overhead import wall  # this folder's: a command's wall time, run from the repo root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", nargs="*", default=["samples/programs/ga.py", "5000", "50"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-cache", action="store_true", help="inspector run --no-cache: torch's caches off")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as folder:
        out = Path(folder) / "out"
        bare = [sys.executable, *args.program]
        inspected = [sys.executable, "-m", "inspector", "run", "-o", str(out),
                     *(["--no-cache"] if args.no_cache else []), *args.program]
        envs = {"bare": dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(Path(folder) / "bare")),
                "inspector run": dict(os.environ, XDG_CACHE_HOME=str(Path(folder) / "xdg"))}
        commands = {"bare": bare, "inspector run": inspected}
        for name, command in commands.items():
            wall(command, envs[name])
        times, program_s = {"bare": [], "inspector run": []}, []
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(wall(command, envs[name]))
            record = json.loads((out / f"{Path(args.program[0]).stem}.json").read_text())
            program_s.append(record["program"]["wall_s"])
    base, ours = statistics.median(times["bare"]), statistics.median(times["inspector run"])
    print(f"{' '.join(args.program)}, {args.repeats} repeats, alternating"
          + (", inspector run --no-cache" if args.no_cache else ", each a rerun with torch's caches warm"))
    for name, values in times.items():
        runs = ", ".join(f"{t:.2f}" for t in values)
        print(f"  {name:<14} median {statistics.median(values):6.2f} s  (runs: {runs})")
    print(f"  the program's own run under inspector (probe's clock): median {statistics.median(program_s):.2f} s")
    pairs = [i / b for b, i in zip(times["bare"], times["inspector run"])]
    print(f"inspector run overhead: {ours - base:.2f} s, {100 * (ours / base - 1):.1f} % over the bare program; "
          f"ratio of medians {ours / base:.2f}x (pairs {min(pairs):.2f}x to {max(pairs):.2f}x)")


if __name__ == "__main__":
    main()
