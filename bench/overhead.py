"""Inspector's own overhead: wall time of ``inspector report`` against a bare script doing the same timed work.

    python bench/overhead.py [SAMPLE] [--population N] [--budget S] [--repeats 3]

One untimed ``inspector report`` warms Inductor's caches and records how many calls each variant got. Then,
``--repeats`` times, alternately: ``inspector report`` (its HTML, JSON and trace written to a temporary folder),
and a bare script in a fresh interpreter that imports the sample, builds the population, compiles each variant
with ``torch.compile`` and makes the same calls: the compiling first call, then as many calls as the record says
inspector timed, its alternating rounds included (for Python variants, on the same subset of individuals). Prints
both medians and the overhead.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE = r'''
import importlib.util, json, sys, time
import numpy as np, torch
plan = json.loads(sys.argv[1])
spec = importlib.util.spec_from_file_location("sample", plan["sample"])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
population = module.population(plan["population"], np.random.default_rng(0))
for v in plan["variants"]:
    fn = getattr(module, v["function"])
    if v["kind"] == "python":
        subset = population[:v["individuals"]].tolist()
        call = lambda: [fn(ind) for ind in subset]
    else:
        data = torch.from_numpy(population) if v["kind"] == "torch" else population
        target = torch.compile(fn) if v["compiled"] else fn
        call = lambda: target(data)
    for _ in range(v["calls"]):
        call()
'''


def plan(record):
    """What the bare script must do to match the record: per variant that ran, its calls and individuals."""
    variants = []
    rounds = (record.get("rounds") or {}).get("variants") or {}
    warm = (record.get("rounds") or {}).get("warmup_s") or {}
    for v in record["variants"]:
        t = v.get("timing")
        if v["status"] != "ok" or not t:
            continue
        # the first call (compiling, or eager warm-up and first timed call), measure()'s estimate, runs x number;
        # then the rounds' calls, and the warm-up call of a compiled variant before them
        first = 3 if v["kind"] != "python" and not v["compiled"] else 2
        again = sum(r.get("calls", 2 + r["runs"] * r["number"]) for r in rounds.get(v["id"], []) if "runs" in r)
        variants.append({"function": v["function"], "kind": v["kind"], "compiled": v["compiled"],
                         "individuals": v.get("measured_population") or record["sample"]["population"],
                         "calls": first + t["runs"] * t["number"] + again + (v["id"] in warm)})
    return {"sample": record["sample"]["file"], "population": record["sample"]["population"], "variants": variants}


def wall(command, env=None):
    """Seconds ``command`` takes from the repo root (``env``: its environment, else this one's)."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sample", nargs="?", default="samples/trig.py")
    p.add_argument("--population", type=int, default=100_000)
    p.add_argument("--budget", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-bench-") as out:
        report = [sys.executable, "-m", "inspector", "report", args.sample, "--population", str(args.population),
                  "--budget", str(args.budget), "-o", out]
        wall(report)  # warm the caches; the record says how many calls each variant got
        record = json.loads((Path(out) / f"{Path(args.sample).stem}.json").read_text())
        bare = [sys.executable, "-c", BARE, json.dumps(plan(record))]
        times = {"inspector": [], "bare": []}
        for _ in range(args.repeats):
            times["inspector"].append(wall(report))
            times["bare"].append(wall(bare))
    ours, base = statistics.median(times["inspector"]), statistics.median(times["bare"])
    print(f"{args.sample}, population {args.population:,}, budget {args.budget:g} s, {args.repeats} repeats")
    for name, values in times.items():
        runs = ", ".join(f"{t:.2f}" for t in values)
        print(f"  {name:<10} median {statistics.median(values):6.2f} s  (runs: {runs})")
    print(f"inspector overhead: {ours - base:.2f} s, {100 * (ours / base - 1):.1f} % over the bare script")


if __name__ == "__main__":
    main()
