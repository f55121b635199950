"""What recording Inductor's decisions and the kernels' machine code costs, and what it adds to the record.

    python bench/capture_cost.py [--repeats 3] [SAMPLE ...]

For each sample (default: the blog's poly, trig, sum and ten_genes), a fresh interpreter compiles its first NumPy
variant at the sample's default population under inspector's capture, with the decision and machine-code hooks
(probe/decisions.py, probe/machine.py) and without them, alternating, ``--repeats`` times each. It prints, with and
without, the first call (the compile, decisions recorded meanwhile) and ``take()`` (which disassembles the kernels):
medians, ranges, the ratio of the totals' medians, and the bytes both add to the record.
"""

import argparse
import json
import statistics
import subprocess
import sys

SAMPLES = ["samples/poly.py", "samples/trig.py", "samples/sum.py", "samples/ten_genes.py"]
CHILD = r"""
import json, sys, time
import numpy as np, torch
from inspector.probe import decisions, machine, sample as samples
from inspector.probe.capture import Capture
if sys.argv[2] == "without":
    decisions.Decisions.install = machine.MachineCode.install = lambda self, restore: None
module = samples.load(sys.argv[1])
name = next(name for name, kind, _ in samples.functions(module)[0] if kind == "numpy")
pop = module.population(module.POPULATION_SIZE, np.random.default_rng(0))
capture = Capture()
capture.install()
compiled = torch.compile(getattr(module, name))
start = time.perf_counter()
compiled(pop)
first = time.perf_counter() - start
start = time.perf_counter()
taken = capture.take()
take = time.perf_counter() - start
size = len(json.dumps([[n.get("decisions") for g in taken["graphs"] for n in g.get("nests") or []],
                       taken.get("machine_code")]))
print(json.dumps({"first_s": first, "take_s": take, "bytes": size}))
"""


def run(sample, mode):
    out = subprocess.run([sys.executable, "-c", CHILD, sample, mode], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("samples", nargs="*", default=SAMPLES)
    args = parser.parse_args()
    print(f"{'sample':<20} {'compile with':>22} {'without':>22} {'take() with':>24} {'without':>22} {'ratio':>6} "
          f"{'record':>9}")
    for sample in args.samples:
        run(sample, "with")  # warm the C++ compiler's cache: both sides then rebuild nothing
        found = {"with": [], "without": []}
        for _ in range(args.repeats):  # alternating: a noisy moment hits both sides
            for mode, runs in found.items():
                runs.append(run(sample, mode))
        cells = [_cell([r[key] for r in found[mode]]) for key in ("first_s", "take_s") for mode in found]
        total = {mode: statistics.median(r["first_s"] + r["take_s"] for r in runs) for mode, runs in found.items()}
        size = max(r["bytes"] for r in found["with"])
        print(f"{sample:<20} {cells[0]:>22} {cells[1]:>22} {cells[2]:>24} {cells[3]:>22} "
              f"{total['with'] / total['without']:>6.2f} {size:>7,} B")


def _cell(times):
    return f"{statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f})"


if __name__ == "__main__":
    main()
