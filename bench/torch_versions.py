"""Which torch should I run? Two torch versions compared on samples and a program, through managed environments.

    python bench/torch_versions.py [--torch 2.13.0 --torch 2.15.0] [--envs DIR] [--out DIR] [--population N]
                                   [--sample samples/poly.py ...] [--program "samples/programs/ga.py 5000"]

Runs ``inspector compare --torch A --torch B`` on each sample (default: poly, trig, ten_genes) and ``inspector compare
--torch A --torch B --program ...`` on the GA program (it needs the network the first time: each environment is made
once in ``--envs``, default inspector's cache), then prints per compiled variant or function its time under each
version, the change, and how many of its kernels differ after normalisation; last, each environment's torch, size
and install time (``inspector envs``).
"""

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector import envs  # noqa: E402
from inspector.analysis import analyze, compare  # noqa: E402
from inspector.record import load  # noqa: E402
from inspector.render.comparison import moved  # noqa: E402
from inspector.render.words import seconds  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torch", action="append")
    parser.add_argument("--envs", default=None)
    parser.add_argument("--out", default="reports/torch-versions")
    parser.add_argument("--population", type=int, default=None)
    parser.add_argument("--sample", action="append")
    parser.add_argument("--program", default="samples/programs/ga.py 5000")
    args = parser.parse_args()
    versions = args.torch or ["2.13.0", "2.15.0"]
    common = [a for v in versions for a in ("--torch", v)] + (["--envs", args.envs] if args.envs else []) + [
        "--out", args.out]
    size = ["-n", str(args.population)] if args.population else []
    jobs = [(Path(s).stem, [s, *size]) for s in args.sample or ["samples/poly.py", "samples/trig.py",
                                                               "samples/ten_genes.py"]]
    if args.program:
        program = shlex.split(args.program)
        jobs.append((Path(program[0]).stem, ["--program", *program]))
    for stem, what in jobs:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "inspector", "compare", *common, *what], cwd=ROOT,
                              capture_output=True, text=True)
        print(f"== {' '.join(what)}: exit {done.returncode}, {time.perf_counter() - start:.0f} s")
        if done.returncode not in (0, 1):
            print(done.stderr[-2000:])
            continue
        _summary(ROOT / args.out, stem, versions)
    print("== environments")
    for env in envs.environments(args.envs):
        print(" ", envs.describe(env))


def _summary(out, stem, versions):
    """Per compiled variant or function: its time under each run, the change, its kernels that differ."""
    records = sorted(out.glob(f"{stem}-torch-*.json"), key=lambda p: p.stat().st_mtime)[-len(versions):]
    result = compare.compare([analyze(load(p)) for p in records])
    for pair in result.pairs:
        for w in pair.warnings:
            print(f"  warning: {w}")
        for v in (v for v in pair.variants if v.compiled):
            time_row = v.time
            differ = [k.b for k in v.kernels if not k.identical]
            print(f"  {v.id:<22} {seconds(time_row.a) if time_row else '-':>9} → "
                  f"{seconds(time_row.b) if time_row else '-':>9}  {moved(time_row and time_row.speedup):<14} kernels: "
                  f"{len(v.kernels) - len(differ)} identical, {len(differ)} differ"
                  + (f", {len(v.added)} added, {len(v.removed)} removed" if v.added or v.removed else "")
                  + (f" ({', '.join(differ)})" if differ else ""))


if __name__ == "__main__":
    main()
