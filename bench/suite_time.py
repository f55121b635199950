"""The test suite's time on this machine, as tests/conftest.py sets OpenMP's wait policy and as libgomp's default.

    python bench/suite_time.py [--repeats 2] [PYTEST ARGS...]

Runs ``python -m pytest -q`` (two workers: pyproject.toml) ``--repeats`` times in each setting, the two alternating,
and prints each run's wall time and the CPU time of the suite and all it started (user + system), then the medians,
their spread and the ratios. The suite's setting is OMP_WAIT_POLICY=PASSIVE (tests/conftest.py): OpenMP's threads
sleep once out of work. The other is libgomp's default, given by GOMP_SPINCOUNT=300000, which takes precedence over
the policy: a thread spins about 3 ms before it sleeps. A run that fails is said, and its times are still printed.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {"suite (OMP_WAIT_POLICY=PASSIVE)": {},
            "libgomp's default (GOMP_SPINCOUNT=300000)": {"GOMP_SPINCOUNT": "300000"}}


def run_once(extra_env: dict[str, str], args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the suite and its children, pytest's exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=ROOT, env={**os.environ, **extra_env},
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    known, pytest_args = parser.parse_known_args()
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in SETTINGS}
    for i in range(known.repeats):
        for name, env in SETTINGS.items():
            wall, cpu, status = run_once(env, pytest_args)
            found[name].append((wall, cpu))
            print(f"run {i + 1} {name}: {wall:.1f} s wall, {cpu:.1f} CPU-s" + (f" (pytest exit {status})" if status
                                                                            else ""), flush=True)
    medians = {}
    for name, runs in found.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        medians[name] = statistics.median(walls), statistics.median(cpus)
        print(f"{name}: median {medians[name][0]:.1f} s wall (spread {min(walls):.1f}-{max(walls):.1f}), "
              f"{medians[name][1]:.1f} CPU-s (spread {min(cpus):.1f}-{max(cpus):.1f})")
    (suite_wall, suite_cpu), (default_wall, default_cpu) = medians.values()
    print(f"default / suite: {default_wall / suite_wall:.2f}x wall, {default_cpu / suite_cpu:.2f}x CPU")


if __name__ == "__main__":
    main()
