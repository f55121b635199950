"""Does ``inspector run`` change what a program measures of itself? A program times its warmed-up fourth call.

    python bench/own_timing.py [--repeats 5] [--rows 20000] [-- INSPECTOR RUN OPTIONS]

samples/programs/own_timing.py calls its compiled fitness three times and times the fourth call. It runs
``--repeats`` times bare and as many under ``inspector run`` (alternating, after one untimed run of each to warm the
C++ compiler's cache); the script prints each side's fourth-call times, their medians, and whether the median under
inspector lies within the bare runs' range (inspector's trace and profile passes take the second and third calls).
"""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile

PROGRAM = "samples/programs/own_timing.py"


def fourth_call_ms(command):
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"fourth call: ([\d.]+) ms", out).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("options", nargs="*", help="inspector run's options (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as out:
        commands = {"bare": [sys.executable, PROGRAM, str(args.rows)],
                    "inspector run": [sys.executable, "-m", "inspector", "run", "-o", out, *args.options, PROGRAM,
                                      str(args.rows)]}
        for command in commands.values():
            fourth_call_ms(command)
        times = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(fourth_call_ms(command))
    for name, values in times.items():
        print(f"{name:<14} fourth call median {statistics.median(values):.4f} ms "
              f"(runs: {', '.join(f'{t:.4f}' for t in values)})")
    low, high = min(times["bare"]), max(times["bare"])
    ours = statistics.median(times["inspector run"])
    verdict = "within" if low <= ours <= high else "outside"
    print(f"median under inspector {ours:.4f} ms: {verdict} the bare runs' range {low:.4f}-{high:.4f} ms "
          f"(ratio of medians {ours / statistics.median(times['bare']):.2f})")


if __name__ == "__main__":
    main()
