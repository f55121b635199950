"""Inspector's timing harness against torch.utils.benchmark, on the same functions in one process.

    python bench/harness_vs_timer.py [--rounds 5] [--budget 0.5]

Takes the blog samples' NumPy and compiled variants at a modest population (built exactly as the probe
builds them), and in each round times every function with ``Timer.blocked_autorange`` (at torch's thread
count, not the Timer's default of one thread) and with ``inspector.probe.timing.measure``, alternating which
goes first. Prints, per function, both medians and the ratio inspector / Timer: its median over the rounds
and its spread (min-max).
"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
import torch
import torch.utils.benchmark as benchmark

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.probe import sample as samples  # noqa: E402
from inspector.probe.runner import prepare  # noqa: E402  the probe's own way of building a variant's call
from inspector.probe.timing import measure  # noqa: E402

CASES = (("trig", 100_000), ("sum", 20_000))
VARIANTS = ("numpy", "numpy-compiled-cpu", "torch-compiled-cpu")


def calls():
    """(label, zero-argument call) for every case and variant, compiled and warmed up."""
    out = []
    for stem, n in CASES:
        module = samples.load(str(ROOT / "samples" / f"{stem}.py"))
        population = module.population(n, np.random.default_rng(0))
        for variant in (v for v in samples.variants(module)[0] if v.id in VARIANTS):
            target, convert, _ = prepare(variant, getattr(module, variant.function))
            data = convert(population)
            call = (lambda t, d: lambda: t(d))(target, data)
            call()  # compile
            out.append((f"{stem} {variant.id} (n={n:,})", call))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--budget", type=float, default=0.5, help="seconds per measurement, for both harnesses")
    args = p.parse_args()
    threads = torch.get_num_threads()
    functions = calls()
    results = {label: [] for label, _ in functions}
    for r in range(args.rounds):
        for label, call in functions:
            timer = benchmark.Timer("call()", globals={"call": call}, num_threads=threads)
            got = {}
            for which in ("timer", "ours") if r % 2 == 0 else ("ours", "timer"):
                got[which] = (timer.blocked_autorange(min_run_time=args.budget).median if which == "timer"
                              else measure(call, budget_s=args.budget)["median_s"])
            results[label].append((got["timer"], got["ours"]))
    print(f"torch {torch.__version__}, {threads} threads, {args.rounds} rounds, {args.budget:g} s per measurement")
    print(f"{'function':<44} {'Timer median':>13} {'inspector':>11} {'ratio':>7} {'spread':>15}")
    medians = []
    for label, pairs in results.items():
        ratios = [i / t for t, i in pairs]
        medians.append(statistics.median(ratios))
        print(f"{label:<44} {statistics.median(t for t, _ in pairs) * 1e3:>10.3f} ms "
              f"{statistics.median(i for _, i in pairs) * 1e3:>8.3f} ms {medians[-1]:>7.3f} "
              f"{min(ratios):>7.3f}-{max(ratios):.3f}")
    print(f"median ratio inspector / torch.utils.benchmark over all functions: {statistics.median(medians):.3f} "
          f"(worst {max(medians, key=lambda m: abs(m - 1)):.3f})")


if __name__ == "__main__":
    main()
