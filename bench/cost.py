"""What inspector itself costs on a sample: wall time and peak memory, summed over all its processes.

    python bench/cost.py [SAMPLE] [--population N] [--repeats 1] [--only report] [-- EXTRA CLI ARGS]

Runs ``inspector breaks SAMPLE`` and ``inspector report SAMPLE`` (defaults: samples/first_draft.py at its
POPULATION_SIZE; a folder takes ``--only report``), each in a fresh process tree, sampling every 0.1 s the resident
memory of the CLI and all its descendants (the probe, Inductor's compile workers) from /proc. Prints, per command,
the wall time and the peak of the summed resident memory: median and spread over the repeats. Linux only (/proc).
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
PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root):
    """Resident bytes of ``root`` and all its descendants now."""
    parents, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as f:
                rss[int(entry)] = int(f.read().split()[1]) * PAGE
            parents[int(entry)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += [child for child, parent in parents.items() if parent == pid]
    return total


def run(command):
    """(wall seconds, peak summed RSS bytes, exit code) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.1)
    return time.perf_counter() - start, peak, proc.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sample", nargs="?", default="samples/first_draft.py")
    parser.add_argument("--population", "-n", type=int)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", choices=("breaks", "report"), help="run only this command")
    parser.add_argument("extra", nargs="*", help="further arguments for both commands (after --)")
    args = parser.parse_args()
    size = ["-n", str(args.population)] if args.population else []
    with tempfile.TemporaryDirectory() as out:
        commands = {"breaks": ["breaks", args.sample, *size, *args.extra],
                    "report": ["report", args.sample, *size, "-o", out, *args.extra]}
        print(f"{args.sample}{f', population {args.population:,}' if args.population else ''}, "
              f"{args.repeats} repeat(s)")
        for name, cli in commands.items():
            if args.only and name != args.only:
                continue
            runs = [run([sys.executable, "-m", "inspector", *cli]) for _ in range(args.repeats)]
            walls, peaks = [r[0] for r in runs], [r[1] / 2**30 for r in runs]
            print(f"  inspector {name:<7} wall median {statistics.median(walls):7.1f} s (spread {min(walls):.1f}-"
                  f"{max(walls):.1f}); peak memory median {statistics.median(peaks):5.2f} GiB (spread "
                  f"{min(peaks):.2f}-{max(peaks):.2f}); exit codes {sorted({r[2] for r in runs})}")


if __name__ == "__main__":
    main()
