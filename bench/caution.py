"""How often does the report's one caution about the machine fire, on a quiet machine and on a loaded one?

    python bench/caution.py [SAMPLE] [--repeats 10] [--population N]

Makes ``--repeats`` reports of SAMPLE (default samples/trig.py at its default size) on the machine as it is, then as
many while a busy-looping process holds one core, and prints how many of each carried the caution
(``inspector.render.views.caution``: the run's timing windows saw other processes use 20 % of the CPUs or steal 5 %,
or most ratios to NumPy moved by more than 1.5x across the alternating rounds) and why. Aim: at most 1 in 10 quiet
reports, most loaded ones. Run it with nothing else running: "quiet" means quiet.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis import analyze  # noqa: E402
from inspector.record import load  # noqa: E402
from inspector.render import views  # noqa: E402


def caution(sample, population, busy):
    """The caution of one fresh report (None: none), made with or without a core held busy."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "inspector", "report", sample, "-o", out, "-f", "json"]
            cmd += ["-n", str(population)] if population else []
            subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
            return views.caution(analyze(load(Path(out) / f"{Path(sample).stem}.json")))
    finally:
        if hog:
            hog.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sample", nargs="?", default="samples/trig.py")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--population", "-n", type=int)
    args = parser.parse_args()
    for label, busy in (("quiet", False), ("one core busy", True)):
        said = [caution(args.sample, args.population, busy) for _ in range(args.repeats)]
        fired = [s for s in said if s]
        print(f"{label}: the caution fired on {len(fired)} of {args.repeats} reports")
        for s in fired:
            print(f"  - {s}")


if __name__ == "__main__":
    main()
