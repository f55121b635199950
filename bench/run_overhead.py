"""What ``inspector run`` adds to a program: its wall time against the program run bare, alternating.

    python bench/run_overhead.py [PROGRAM] [ARGS...] [--repeats 5]

Default: samples/programs/ga.py 5000 50. One untimed run of each warms the caches (the C++ compiler's; capture turns
Inductor's FX graph cache off, so both compile their graphs afresh each time only where the bare run's cache is
cold). Then, ``--repeats`` times, alternately: ``python PROGRAM ARGS`` and ``inspector run PROGRAM ARGS`` (its
report written to a temporary folder). Prints both medians, their spread, and the overhead, with and without the
report's writing (the program's own end is when the probe says the program ended).
"""

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from overhead import wall  # this folder's: a command's wall time, run from the repo root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", nargs="*", default=["samples/programs/ga.py", "5000", "50"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    bare = [sys.executable, *args.program]
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as out:
        inspected = [sys.executable, "-m", "inspector", "run", "-o", out, *args.program]
        wall(bare), wall(inspected)
        times, program_s = {"bare": [], "inspector run": []}, []
        for _ in range(args.repeats):
            times["bare"].append(wall(bare))
            times["inspector run"].append(wall(inspected))
            record = json.loads((Path(out) / f"{Path(args.program[0]).stem}.json").read_text())
            program_s.append(record["program"]["wall_s"])
    base, ours = statistics.median(times["bare"]), statistics.median(times["inspector run"])
    print(f"{' '.join(args.program)}, {args.repeats} repeats, alternating")
    for name, values in times.items():
        runs = ", ".join(f"{t:.2f}" for t in values)
        print(f"  {name:<14} median {statistics.median(values):6.2f} s  (runs: {runs})")
    print(f"  the program's own run under inspector (probe's clock): median {statistics.median(program_s):.2f} s")
    print(f"inspector run overhead: {ours - base:.2f} s, {100 * (ours / base - 1):.1f} % over the bare program")


if __name__ == "__main__":
    main()
