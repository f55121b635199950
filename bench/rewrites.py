"""What writing, checking and timing the rewrites adds to `inspector report`, and how the rewrite of the blog's
fitness_python compares with its hand translation (fitness_numpy).

    python bench/rewrites.py [SAMPLE ...] [--repeats 3] [--population N] [--no-warm]

For each sample (default: the blog's three, samples/poly.py, trig.py and sum.py, at their default sizes), makes one
report with the rewrites to warm the caches (Inductor's C++ builds, numba's cache of the rewrite; ``--no-warm``:
none), then ``--repeats`` reports with the rewrites and as many with ``--no-rewrites``, taking turns (which goes
first alternating), and prints each's wall time (median, lowest and highest), the ratio of the medians, and the
median, lowest and highest of the ratios of each report with them to the one without made beside it (target: at
most 1.25x, the rewrites being on by default). Then, from the same alternating rounds of each report with rewrites,
the rewrite's median over fitness_numpy's, eager (python-rewritten-numpy against numpy) and compiled
(python-rewritten-numpy-compiled-cpu against numpy-compiled-cpu), with the rounds' lowest and highest side-by-side
ratio (target: within 1.2x, or the rounds' ranges overlap). Run it on a quiet machine.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis import analyze, rounds  # noqa: E402
from inspector.record import load  # noqa: E402

SAMPLES = ("samples/poly.py", "samples/trig.py", "samples/sum.py")
PAIRS = (("eager", "python-rewritten-numpy", "numpy"),
         ("compiled", "python-rewritten-numpy-compiled-cpu", "numpy-compiled-cpu"))


def report(sample, population, rewrites):
    """(wall seconds of one `inspector report`, its Analysis)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "inspector", "report", sample, "-o", out, "-f", "json"]
        cmd += ["-n", str(population)] if population else []
        cmd += ["--rewrites"] if rewrites else ["--no-rewrites"]
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
        return time.perf_counter() - start, analyze(load(Path(out) / f"{Path(sample).stem}.json"))


def against_hand(a):
    """Per pair: (rewrite's median / fitness_numpy's median per population, (lowest, highest) round ratio)."""
    runs = {x.id: x for r in a.rewrites for x in r.runs}
    found = {}
    for label, rid, vid in PAIRS:
        run, v = runs.get(rid), next((v for v in a.variants if v.id == vid), None)
        if run and run.timing and v and v.timing:
            side = rounds.side_by_side(run.timing.rounds_s, v.timing.rounds_s)
            found[label] = (run.timing.per_population_s / v.timing.per_population_s,
                            (side[1][0], side[1][1]) if side else None)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="*", default=SAMPLES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--population", "-n", type=int)
    parser.add_argument("--no-warm", action="store_true", help="no report to warm the caches first")
    args = parser.parse_args()
    for sample in args.samples:
        walls = {True: [], False: []}
        hand = []
        if not args.no_warm:
            report(sample, args.population, True)
        for i in range(args.repeats):
            for rewrites in (True, False) if i % 2 == 0 else (False, True):
                wall, a = report(sample, args.population, rewrites)
                walls[rewrites].append(wall)
                if rewrites:
                    hand.append(against_hand(a))
        on, off = statistics.median(walls[True]), statistics.median(walls[False])
        pairs = [w / wo for w, wo in zip(walls[True], walls[False])]
        print(f"{sample}: with rewrites {on:.1f} s ({min(walls[True]):.1f} to {max(walls[True]):.1f}), without "
              f"{off:.1f} s ({min(walls[False]):.1f} to {max(walls[False]):.1f}), {args.repeats} each: "
              f"{on / off:.2f}x (pairs: median {statistics.median(pairs):.2f}x, {min(pairs):.2f}x to "
              f"{max(pairs):.2f}x)", flush=True)
        for label, _, vid in PAIRS:
            said = [h[label] for h in hand if label in h]
            if said:
                low = min(s[1][0] for s in said if s[1]) if any(s[1] for s in said) else None
                high = max(s[1][1] for s in said if s[1]) if any(s[1] for s in said) else None
                spread = f", rounds {low:.2f}x to {high:.2f}x" if low else ""
                print(f"  rewrite / {vid} ({label}): median {statistics.median(s[0] for s in said):.2f}x of its time"
                      f"{spread}", flush=True)


if __name__ == "__main__":
    main()
