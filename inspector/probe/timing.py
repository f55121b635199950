"""The timing harness: warm-up excluded, adaptive block size and repeat count, min/median/max.

Method (documented in docs/timing.md): one warm-up call (for compiled variants the first call,
which compiles, is timed on its own); then calls are grouped in blocks of ``number`` calls so that a
block lasts at least ``MIN_BLOCK_S``; blocks are repeated until ``budget_s`` is spent, with at least
``MIN_RUNS`` and at most ``MAX_RUNS`` blocks (however far the one call the block size was estimated from was from
the later ones: a busy machine; blocks far shorter than meant are sized again once, from the first ones). Each
block's time divided by ``number`` is one sample.
"""

import statistics
import time
from collections.abc import Callable
from typing import Any, Optional

MIN_BLOCK_S = 0.002
MIN_RUNS = 5
MAX_RUNS = 200


def measure(call: Callable[[], object], sync: Callable[[], object] = lambda: None, budget_s: float = 1.0,
            first_call_s: Optional[float] = None, min_runs: int = MIN_RUNS, estimate_s: Optional[float] = None
            ) -> dict[str, Any]:
    """Time ``call()``; return the timing dict of the record. ``sync`` waits for the device; ``min_runs``: fewer
    blocks for a slow call within a short budget (a round); ``estimate_s``: a call's seconds, measured just before,
    to size the blocks from (None: one more call)."""
    if first_call_s is None:
        first_call_s = once(call, sync)
    number, most = _blocks(once(call, sync) if estimate_s is None else estimate_s, budget_s, min_runs)
    samples: list[float] = []
    calibrated = False
    began = time.perf_counter()
    while len(samples) < most:
        start = time.perf_counter()
        for _ in range(number):
            call()
        sync()
        samples.append((time.perf_counter() - start) / number)
        if not calibrated and len(samples) == min(min_runs, most):
            calibrated = True
            # the estimating call was descheduled (a busy machine): blocks far shorter than meant (under a quarter)
            # would reach MAX_RUNS long before the budget; size them again from these blocks, once
            if number * statistics.median(samples) < MIN_BLOCK_S / 4:
                number, most = _blocks(statistics.median(samples), budget_s, min_runs)
                samples = []
                continue
        if len(samples) >= min(min_runs, most) and time.perf_counter() - began >= budget_s:
            break
    runs = len(samples)
    return {"first_call_s": first_call_s, "median_s": statistics.median(samples), "min_s": min(samples),
            "max_s": max(samples), "runs": runs, "number": number,
            "samples_s": [round(s, 9) for s in samples]}


def _blocks(estimate: float, budget_s: float, min_runs: int) -> tuple[int, int]:
    """(calls per block, most blocks) for a call estimated to take ``estimate`` seconds."""
    estimate = max(estimate, 1e-9)
    number = max(1, int(MIN_BLOCK_S / estimate + 0.999))
    # a very slow call: fewer, still honest, blocks
    return number, min(3, min_runs) if estimate * number * min_runs > 4 * budget_s else MAX_RUNS


def once(call: Callable[[], object], sync: Callable[[], object] = lambda: None) -> float:
    """Seconds one call takes, the device synchronised."""
    start = time.perf_counter()
    call()
    sync()
    return time.perf_counter() - start
