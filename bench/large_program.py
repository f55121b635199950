"""``inspector run`` on a large program: a stable-fluids solver whose loops Dynamo unrolls into one graph.

    python bench/large_program.py [--steps 1] [--sweeps 4] [--size 64] [--frames 6]

Runs samples/programs/fluid/fluid.py with these arguments once bare (``python fluid.py ...``) and once under
``inspector run``, each with Inductor's cache cold (a fresh TORCHINDUCTOR_CACHE_DIR), then opens the report in
Chromium (Playwright with the system /usr/bin/chromium, or INSPECTOR_CHROMIUM; never a downloaded browser).
Prints both wall times and their ratio, the record's and the page's sizes, and the page's load time, each against
its target (1.5x, 10 MB, 5 s). ``--sweeps`` and ``--steps`` size the program: the graph grows with their product
(five solves of ``--sweeps`` red-black Gauss-Seidel sweeps per step, every helper call inlined).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "samples" / "programs" / "fluid" / "fluid.py"
CHROMIUM = os.environ.get("INSPECTOR_CHROMIUM", "/usr/bin/chromium")
TARGETS = {"ratio": 1.5, "html_mb": 10, "load_s": 5}


def timed(command, cache):
    """Wall seconds of ``command``, run from the repo root with Inductor's cache in the empty folder ``cache``."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache)))
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def load_seconds(page_path):
    """Seconds from navigation to the load event of ``page_path`` in Chromium, as the page's own clock says."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=600_000)
        entry = page.evaluate("() => performance.getEntriesByType('navigation')[0].toJSON()")
        browser.close()
    return entry["loadEventStart"] / 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1, help="time steps per compiled call (unrolled)")
    parser.add_argument("--sweeps", type=int, default=4, help="Gauss-Seidel sweeps per solve (unrolled)")
    parser.add_argument("--size", type=int, default=64, help="grid cells per side")
    parser.add_argument("--frames", type=int, default=6, help="calls of the compiled function")
    args = parser.parse_args()
    program = [str(PROGRAM.relative_to(ROOT)), "--steps", str(args.steps), "--sweeps", str(args.sweeps),
               "--size", str(args.size), "--frames", str(args.frames)]
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as work:
        work = Path(work)
        bare = timed([sys.executable, *program], work / "cache-bare")
        inspected = timed([sys.executable, "-m", "inspector", "run", "-o", str(work / "out"), *program],
                          work / "cache-inspector")
        record, page = work / "out" / "fluid.json", work / "out" / "fluid.html"
        record_mb, html_mb = record.stat().st_size / 1e6, page.stat().st_size / 1e6
        program_s = json.loads(record.read_text())["program"]["wall_s"]
        load_s = load_seconds(page)
    ratio = inspected / bare
    print(f"{' '.join(program)}, Inductor's cache cold in both runs")
    print(f"  bare              {bare:7.1f} s")
    print(f"  inspector run     {inspected:7.1f} s   {ratio:.2f}x the bare run (target <= {TARGETS['ratio']}x); "
          f"the program's own run in it {program_s:.1f} s, the rest (start, record, analysis, report) "
          f"{inspected - program_s:.1f} s")
    print(f"  record            {record_mb:7.1f} MB")
    print(f"  HTML              {html_mb:7.1f} MB  (target < {TARGETS['html_mb']} MB)")
    print(f"  Chromium load     {load_s:7.2f} s   (target < {TARGETS['load_s']} s)")


if __name__ == "__main__":
    main()
