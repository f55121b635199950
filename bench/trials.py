"""What do the fixes tried cost? `inspector report` with and without --try-fixes, alternating, on the blog samples.

    python bench/trials.py [SAMPLE ...] [--repeats 3] [--population N]

Per sample (default: samples/poly.py, trig.py, sum.py and ten_genes.py at their default sizes), one report first
to warm the caches (Inductor's C++ builds), then ``--repeats`` pairs of fresh reports, alternating which goes first:
`inspector report SAMPLE` (fixes tried where they apply) and the same with `--no-try-fixes`. Prints per sample the
fixes tried, both median wall times and CPU times (all of the report's processes: user + system) with their range,
and what the fixes added as a share of the report without them. Target: at most 25 %. The machine's other work moves
wall times far more than CPU times: on a shared machine, read the CPU times.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.record import load  # noqa: E402

BLOG = ["samples/poly.py", "samples/trig.py", "samples/sum.py", "samples/ten_genes.py"]


def report(sample, population, try_fixes, out):
    """((wall seconds, CPU seconds), the record's trials) of one `inspector report`."""
    cmd = [sys.executable, "-m", "inspector", "report", sample, "-o", out, "-f", "json"]
    cmd += ["-n", str(population)] if population else []
    cmd += [] if try_fixes else ["--no-try-fixes"]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    after, seconds = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - start
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (seconds, cpu), load(Path(out) / f"{Path(sample).stem}.json").trials or []


def _said(what, with_, without):
    """One line: both medians with their ranges, and the difference as a share of the report without fixes."""
    a, b = statistics.median(with_), statistics.median(without)
    return (f"  {what}: with fixes {a:.1f} s ({min(with_):.1f} to {max(with_):.1f}), without {b:.1f} s "
            f"({min(without):.1f} to {max(without):.1f}): {a - b:+.1f} s, {(a - b) / b:+.0%}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="*", default=BLOG)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--population", "-n", type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        for sample in args.samples:
            report(sample, args.population, True, out)  # warm the caches
            times, tried = {True: [], False: []}, []
            for i in range(args.repeats):
                for fixes in (True, False) if i % 2 == 0 else (False, True):
                    seconds, found = report(sample, args.population, fixes, out)
                    times[fixes].append(seconds)
                    tried = found or tried
            names = ", ".join(f"{t.fix} on {t.variant}" for t in tried) or "none"
            print(f"{sample}: tried {names} (medians of {args.repeats})")
            for i, what in enumerate(("wall", "CPU")):
                print(_said(what, [t[i] for t in times[True]], [t[i] for t in times[False]]), flush=True)


if __name__ == "__main__":
    main()
