"""What compiling costs on a rerun: each compiled variant compiled in a fresh process with torch's caches as an
earlier process left them (``python -m inspector.probe SAMPLE --warm``).

The parent (``inspector.collect``) points torch's caches (``TORCHINDUCTOR_CACHE_DIR``, ``TRITON_CACHE_DIR``) at a folder
of inspector's own, never the user's (the capturing probe's too: this pass loads the kernels it built), and runs this
pass once or twice: a variant whose compile found every graph in Inductor's FX graph cache (and AOTAutograd's) is
measured warm; one that missed has now filled the cache, and the next process measures it. The process's first variant
is compiled twice (Dynamo reset between): what a process's first compile pays once (loading torch's compiler and its
kernel loader), its first compile less its second, is measured apart, not charged to the variant that happens to come
first. Capture is not installed: the caches stay as the installed torch (and the --config items) have them, as a bare
rerun finds them. One ``WarmResult`` per compiled variant: its first call (compile and run), its steady call, torch's
compile metrics for it, and the process's compiler start.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import torch
import torch._dynamo.utils
import torch._inductor.codecache
import torch._inductor.config  # `import torch` alone does not load it in 2.1

from inspector.probe import guard
from inspector.probe import sample as samples
from inspector.probe.messages import Fatal, Message, WarmResult
from inspector.probe.timing import once
from inspector.raw import cache_missed, warm_metrics

STEADY_CALLS = 3


def run(module: ModuleType, variants: list[samples.Variant], population: np.ndarray, args: argparse.Namespace,
        emit: Callable[[Message], None]) -> int:
    """Apply the --config items, then compile and call each selected compiled variant that can run here."""
    from inspector.probe import runner
    try:
        runner.configure(args)
    except samples.SampleError as e:
        emit(Fatal(error=str(e)))
        return 3
    cache_dir = torch._inductor.codecache.cache_dir()
    start: Optional[float] = None
    for v in runner.selected(variants, args.only):
        if not v.compiled or v.preview or v.device == "cuda" and not torch.cuda.is_available():
            continue
        found = _one(v, getattr(module, v.function), population, args.compile_options, runner.prepare, start is None)
        start = found.pop("start", start)
        emit(WarmResult.from_json(dict(found, id=v.id, cache_dir=cache_dir, compiler_start_s=start)))
    return 0


def _one(variant: samples.Variant, fn: Callable[..., Any], population: np.ndarray, options: dict[str, Any],
         prepare: Callable[..., Any], first_in_process: bool) -> dict[str, Any]:
    """One variant compiled and called: its first call's seconds, its steady call's (median of a few), and torch's
    compile metrics for it (where the version keeps them). The process's first variant is compiled twice (Dynamo
    reset between): the first call's time over the second's is what the process paid once (``start``), the second
    is the variant's."""
    try:
        target, convert, sync = prepare(variant, fn, options)
        data = convert(population)
        call = guard.user(lambda: target(data))
        clear = getattr(torch._dynamo.utils, "clear_compilation_metrics", None)
        if clear:
            clear()
        first = once(call, sync)
        start: dict[str, float] = {}
        if first_in_process and clear and not cache_missed(metrics()):  # (a compile that filled the caches: no)
            torch._dynamo.reset()
            clear()
            again = once(call, sync)
            start, first = {"start": max(0.0, first - again)}, again
        compiled = metrics() if clear else None
        steady = statistics.median(once(call, sync) for _ in range(STEADY_CALLS))
    except guard.VariantError as e:
        return {"error": f"{type(e.error).__name__}: {e.error}"}
    return {"first_call_s": first, "steady_s": steady, **start,
            **({"metrics": [warm_metrics(m) for m in compiled]}
               if compiled is not None else {})}


def metrics() -> list[dict[str, Any]]:
    """torch's compile metrics since they were last cleared, as dicts."""
    return [{f.name: getattr(m, f.name) for f in dataclasses.fields(m)}
            for m in torch._dynamo.utils.get_compilation_metrics()]
