"""Does a comparison hold on a busy machine? ``inspector compare`` quiet, then with another process loading a core.

    python bench/compare_under_load.py [SAMPLE] [--python A --python B] [--population N] [--rounds 6] [--repeats 1]
                                       [--also-without-rounds]

Runs ``inspector compare SAMPLE --python A --python B`` (default: ``.venv-torch21/bin/python`` when it exists, and
this interpreter; else this interpreter against itself) on a quiet machine and then while a busy-looping process
keeps one core busy, ``--repeats`` times each, and prints per compiled variant the time ratio of B against A with
its spread over the alternating rounds, quiet and loaded, and how far the loaded ratio is from the quiet one.
``--also-without-rounds`` does the same with ``--rounds 0`` (runs timed one after the other), for contrast.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis import analyze, compare  # noqa: E402
from inspector.record import load  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sample", nargs="?", default="samples/poly.py")
    parser.add_argument("--python", action="append")
    parser.add_argument("--population", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--also-without-rounds", action="store_true")
    args = parser.parse_args()
    old = ROOT / ".venv-torch21" / "bin" / "python"
    pythons = args.python or ([str(old)] if old.exists() else [sys.executable]) + [sys.executable]
    for rounds in [args.rounds] + ([0] if args.also_without_rounds else []):
        quiet = [_ratios(args, pythons, rounds) for _ in range(args.repeats)]
        loaded = [_ratios(args, pythons, rounds, busy=True) for _ in range(args.repeats)]
        print(f"\n{args.sample} at {args.population:,}, {' vs '.join(pythons)}, --rounds {rounds}: ratio of the "
              "second run's time to the first's (above 1: the second is faster)")
        for vid in quiet[0]:
            q = statistics.median(r[vid][0] for r in quiet)
            b = statistics.median(r[vid][0] for r in loaded)
            print(f"  {vid:<22} quiet {_said(quiet, vid)}   one core loaded {_said(loaded, vid)}   "
                  f"loaded/quiet {b / q:.2f} ({abs(b / q - 1):.0%} apart)")


def _ratios(args, pythons, rounds, busy=False):
    """{compiled variant id: (speedup, spread or None)} of one ``inspector compare``."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "inspector", "compare", args.sample, "-n", str(args.population),
                   "--rounds", str(rounds), "-v", "numpy", "-v", "*-compiled-cpu", "-o", out]
            for python in pythons:
                cmd += ["--python", python]
            subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
            stem = Path(args.sample).stem
            records = sorted(Path(out).glob(f"{stem}-*.json"))
            analyses = [analyze(load(p)) for p in records]
            labels = compare.labels(analyses)
            analyses = [a for _, a in sorted(zip(labels, analyses), key=lambda la: _position(la[1], pythons))]
            (pair,) = compare.compare(analyses).pairs
    finally:
        if hog:
            hog.kill()
    return {v.id: (v.timing[0].speedup, v.timing[0].spread) for v in pair.variants if v.compiled}


def _position(analysis, pythons):
    """The run's place in ``--python`` order (its probe's interpreter, or its round position)."""
    if analysis.rounds:
        return analysis.rounds.position
    return next((i for i, p in enumerate(pythons) if Path(p).resolve() == Path(analysis.env.executable).resolve()), 0)


def _said(results, vid):
    ratios = [r[vid][0] for r in results]
    spreads = [r[vid][1] for r in results if r[vid][1]]
    spread = f" [{min(s[0] for s in spreads):.2f}-{max(s[1] for s in spreads):.2f}]" if spreads else ""
    return f"{statistics.median(ratios):.2f}{spread}"


if __name__ == "__main__":
    main()
