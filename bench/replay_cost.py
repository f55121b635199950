"""What the replay adds to ``inspector run``: its wall time with the replay against ``--no-replay``, alternating.

    python bench/replay_cost.py [PROGRAM] [ARGS...] [--repeats 5] [--budget S]

Default: samples/programs/ga.py 3000 8. One untimed run of each warms the caches. Then, ``--repeats`` times,
alternately: ``inspector run --no-replay PROGRAM ARGS`` and ``inspector run --budget S PROGRAM ARGS`` (reports to a
temporary folder). Prints both medians, their spread (lowest to highest), the replay's own seconds per run as the
probe recorded them (summed over the functions), and the ratio of the medians, measured in this one run.
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
    parser.add_argument("program", nargs="*", default=["samples/programs/ga.py", "3000", "8"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=None, help="inspector run's --budget (default: its own)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as out:
        run = [sys.executable, "-m", "inspector", "run", "-o", out]
        budget = ["--budget", str(args.budget)] if args.budget is not None else []
        commands = {"--no-replay": [*run, "--no-replay", *args.program], "replay": [*run, *budget, *args.program]}
        for command in commands.values():
            wall(command)
        times, replay_s = {name: [] for name in commands}, []
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(wall(command))
            record = json.loads((Path(out) / f"{Path(args.program[0]).stem}.json").read_text())
            replay_s.append(sum((v["run"].get("replay") or {}).get("seconds") or 0.0 for v in record["variants"]))
    print(f"inspector run {' '.join(args.program)}, {args.repeats} repeats, alternating")
    for name, values in times.items():
        print(f"  {name:<11} median {statistics.median(values):6.2f} s  ({min(values):.2f} to {max(values):.2f}; "
              f"runs: {', '.join(f'{t:.2f}' for t in values)})")
    print(f"  the replay's own time (probe's clock): median {statistics.median(replay_s):.2f} s "
          f"({min(replay_s):.2f} to {max(replay_s):.2f})")
    base, ours = statistics.median(times["--no-replay"]), statistics.median(times["replay"])
    print(f"replay adds {ours - base:.2f} s: {ours / base:.2f}x the run without it (ratio of medians)")


if __name__ == "__main__":
    main()
