"""A compiled call taken apart (issue 39 item 2): do its parts add to the call?

    python bench/call_parts.py [--repeats 3] [--sample samples/trig.py] [--program samples/programs/ga.py 3000 8]

Makes ``inspector report SAMPLE`` (its default population) and ``inspector run PROGRAM`` ``--repeats`` times and, for
each compiled variant or function, prints the medians over the repeats of: its parts added (kernels, Inductor's
wrapper, torch's wrappers, the guards, the rest: the profiled calls' medians), the same call without the profiler
(``TimeSplit.call_s``: a sample's, the smaller of half as many calls around the profiled ones and the timings' median;
a program's, its replay's), the call as the timings table says it, and the ratios of the parts
to each (target: within 1.1x); then the parts less the profiler's own cost, as the page gives them where it was
estimated (``TimeSplit.without_profiler``: in how many of the repeats), against the call without the profiler.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.api import render  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", default="samples/trig.py")
    parser.add_argument("--program", nargs="+", default=["samples/programs/ga.py", "3000", "8"])
    args = parser.parse_args()
    found: dict[str, list[tuple[float, float, float, Optional[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as folder:
        commands = {Path(args.sample).stem: ["report", "-o", folder, args.sample],
                    Path(args.program[0]).stem: ["run", "-o", folder, *args.program]}
        for _ in range(args.repeats):
            for stem, command in commands.items():
                subprocess.run([sys.executable, "-m", "inspector", *command], cwd=ROOT, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                analysis = render(Path(folder) / f"{stem}.json").analysis
                units = analysis.program.functions if command[0] == "run" else analysis.variants  # type: ignore[union-attr]
                for u in units:
                    split = u.code.time_split
                    if split and split.total_s and split.call_s and u.timing:
                        est = split.without_profiler
                        less = sum(s or 0.0 for s in (est.kernels_s, est.wrapper_s, est.torch_wrappers_s,
                                                      est.guards_s, est.outside_graphs_s)) if est else None
                        found.setdefault(f"{stem}: {u.id}", []).append((split.total_s, split.call_s,
                                                                        u.timing.median_s, less))
    print(f"{args.repeats} repeats; medians: the parts added, the call without the profiler, the timings' call")
    for name, rows in found.items():
        parts, plain, timed = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"  {name:<32} parts {parts * 1e6:9.1f} µs  without the profiler {plain * 1e6:9.1f} µs "
              f"({parts / plain:.2f}x)  timings {timed * 1e6:9.1f} µs ({parts / timed:.2f}x)")
        less = [r[3] / r[1] for r in rows if r[3] is not None]
        print(f"  {'':<32} the parts less the profiler's own cost: estimated in {len(less)} of {len(rows)}"
              + (f", {statistics.median(less):.2f}x the call without the profiler" if less else ""))


if __name__ == "__main__":
    main()
