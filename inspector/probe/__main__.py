"""The probe: run a sample's variants in this interpreter and stream raw facts as JSON lines.

Usage: python -m inspector.probe SAMPLE --results FILE --outputs DIR [--population N] [--seed S]
       [--only ID,ID] [--config KEY=VALUE ...] [--compile-option KEY=VALUE ...] [--budget S]
       [--triton-preview] [--no-kernel-times] [--rounds] [--trials] [--warm]

Imports only the standard library, numpy and torch, so it runs under any torch version's venv.
One message per line goes to --results (``inspector.probe.messages``): a ``Header``; per variant ``Start``,
``Compiled`` (a compiled variant's graphs and breaks, as soon as its first call compiled) and ``VariantResult``; with
--rounds or --trials, ``Ready``, then one ``RoundResult`` per round and one ``TrialAnswer`` per fix asked for
(``inspector.probe.rounds``); ``Fatal`` when the sample itself cannot be run; ``Internal`` when inspector itself
failed (a bug). Variant outputs are saved as DIR/<id>.npy.

Exceptions are sorted by where they come from: raised by the user's code (or torch compiling it) they are that
variant's error; raised by inspector's own passes they are internal errors, recorded beside what was measured.
"""

import argparse
import os
import sys
import traceback
from types import ModuleType
from typing import Optional

import numpy as np

from inspector.probe import sample as samples
from inspector.probe import skip_last_collection
from inspector.probe.messages import Fatal, Internal, Writer

MEMORY_FACTOR = 3  # the population, a variant's temporaries and its output


EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: the probe itself failed


def main(argv: Optional[list[str]] = None) -> int:
    """Run the sample probe; its exit status."""
    skip_last_collection()
    args = _parse(argv)
    emit = Writer(args.results)
    try:
        return _main(args, emit)
    except Exception as e:  # a bug in the probe: say so, and what it was doing
        emit(Internal(where="probe", error=f"{type(e).__name__}: {e}", detail=traceback.format_exc()[-8000:]))
        return EXIT_INTERNAL


def _main(args: argparse.Namespace, emit: Writer) -> int:
    """Load and check the sample (numpy only: a broken sample fails fast), then run it (torch)."""
    try:
        module = samples.load(args.sample)
        info = samples.describe(module)
        variants, ignored = samples.variants(module, args.triton_preview)
        if not variants:
            why = "".join(f"; {i['name']}: {i['reason']}" for i in ignored)
            raise samples.SampleError(f"{args.sample}: no variants (top-level callables fitness_python*, "
                                      f"fitness_numpy* or fitness_torch*){why}")
        n = args.population or info["default_population"] or samples.DEFAULT_POPULATION
        population = _population(module, n, args.seed, args.sample)
    except samples.SampleError as e:
        if e.__context__:  # the user's traceback goes to the log, which --verbose shows
            traceback.print_exception(e.__context__)
        emit(Fatal(error=str(e)))
        return 3
    if args.warm:
        from inspector.probe import warm
        return warm.run(module, variants, population, args, emit)
    from inspector.probe import runner
    return runner.run(module, dict(info, ignored=ignored), variants, population, args, emit,
                      lambda size: _population(module, size, args.seed, args.sample))


def _parse(argv: Optional[list[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="inspector.probe")
    p.add_argument("sample")
    p.add_argument("--results", required=True)
    p.add_argument("--outputs", required=True)
    p.add_argument("--population", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", help="comma-separated variant ids or glob patterns")
    p.add_argument("--sizes", default="", help="comma-separated population sizes to run compiled variants at")
    p.add_argument("--config", action="append", default=[])
    p.add_argument("--compile-option", action="append", default=[], help="torch.compile keyword KEY=VALUE")
    p.add_argument("--budget", type=float, default=1.0)
    p.add_argument("--triton-preview", action="store_true", help="add the Triton codegen preview variants")
    p.add_argument("--no-kernel-times", action="store_true", help="skip the profiled passes timing each kernel")
    p.add_argument("--rounds", action="store_true", help="afterwards, time the variants again in the rounds asked "
                   "for on stdin (inspector.probe.rounds)")
    p.add_argument("--trials", action="store_true", help="afterwards, try the fixes asked for on stdin "
                   "(inspector.probe.trials); without --rounds, no rounds follow")
    p.add_argument("--warm", action="store_true", help="only compile and call each compiled variant, with torch's "
                   "caches as they are (inspector.probe.warm)")
    return p.parse_args(argv)


def _population(module: ModuleType, n: int, seed: int, path: str) -> np.ndarray:
    """The population array, refused before it is built if it would not fit in memory."""
    one = _call_population(module, 1, seed, path)
    needed = n * one.nbytes / len(one) * MEMORY_FACTOR
    available = _available_memory()
    if available and needed > available:
        raise samples.SampleError(
            f"{path}: a population of {n:,} needs about {needed / 1e9:,.1f} GB ({one.nbytes // len(one):,} bytes "
            f"per individual, {MEMORY_FACTOR}x for copies) but {available / 1e9:,.1f} GB of memory is available; "
            "use a smaller --population")
    return _call_population(module, n, seed, path)


def _call_population(module: ModuleType, n: int, seed: int, path: str) -> np.ndarray:
    """The sample's ``population(n, rng)``, checked to be a non-empty array."""
    try:
        pop = module.population(n, np.random.default_rng(seed))
    except Exception as e:
        raise samples.SampleError(f"{path}: population({n}, rng) raised {type(e).__name__}: {e}") from None
    if not isinstance(pop, np.ndarray):
        raise samples.SampleError(f"{path}: population() returned {type(pop).__name__}, not a numpy array")
    if pop.size == 0 or pop.ndim == 0:
        raise samples.SampleError(f"{path}: population() returned an empty array of shape {pop.shape}")
    return pop


def _available_memory() -> Optional[int]:
    """Bytes of memory available now (MemAvailable), or None where the system does not say."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("MemAvailable:"))
    except (OSError, StopIteration):
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return None


if __name__ == "__main__":
    sys.exit(main())
