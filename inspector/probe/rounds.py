"""Timing again in rounds, at the parent's request, so that runs compared with each other see the same machine.

After its variants, a probe started with ``--rounds`` says which it can time again (``ready``) and waits on stdin,
its OpenMP threads asleep (libgomp spins only briefly before it waits); each line the parent writes,
``{"round": R, "budget_s": S}``, times each of those variants for S seconds, their order rotated by R, and answers
with a ``round`` message; ``{"trial": SPEC}`` tries a fix (``inspector.probe.trials``), answered with a ``trial``
message, and the rounds then time it too. The parent gives the runs their turns in alternating order; stdin's end
ends the probe.
"""

import json
import sys

from inspector.probe import load
from inspector.probe.timing import measure, once


def serve(timed, emit, compiled=(), commands=sys.stdin, trial=None):
    """Time the variants ``timed`` ({id: (call, sync)}) once per round asked for on ``commands``, after one
    untimed call of each ``compiled`` one: run before a later variant's ``torch._dynamo.reset()``, it compiles again
    there (the same code: same function, config and inputs), and its seconds are in ``ready``. ``trial(spec)``:
    (its ``trial`` message, (call, sync) to time in the rounds or None)."""
    ids = list(timed)
    warmed = {vid: warm(*timed[vid]) for vid in ids if vid in compiled}
    emit({"type": "ready", "ids": ids, "warmup_s": warmed})
    for line in commands:
        ask = json.loads(line)
        if "trial" in ask:
            message, again = trial(ask["trial"])
            emit(dict(message, type="trial", id=ask["trial"]["id"]))
            if again:
                timed[ask["trial"]["id"]] = again
                ids.append(ask["trial"]["id"])
            continue
        k = ask["round"] % max(1, len(ids))
        emit({"type": "round", "round": ask["round"],
              "variants": {vid: _time(*timed[vid], ask["budget_s"]) for vid in ids[k:] + ids[:k]}})


def warm(call, sync):
    """Seconds of one untimed call (it may compile), or None when it raised."""
    try:
        return once(call, sync)
    except Exception:  # said by the round's {error}
        return None


def _time(call, sync, budget_s):
    """{median_s, min_s, max_s, runs, number, calls, load} of one variant's turn, or {error} if the call now fails.
    A call that alone takes the round's budget is the round's one sample; shorter ones are timed in blocks."""
    def turn():
        first = once(call, sync)
        if first >= budget_s:
            return {"median_s": first, "min_s": first, "max_s": first, "runs": 1, "number": 1, "calls": 1}
        t = measure(call, sync, budget_s - first, first_call_s=0.0, min_runs=1)  # its estimate is one more call
        return dict({k: t[k] for k in ("median_s", "min_s", "max_s", "runs", "number")},
                    calls=2 + t["runs"] * t["number"])
    try:
        t, machine = load.during(turn)
    except Exception as e:  # it ran before; what changed is the user's doing, not a reason to stop the others
        return {"error": f"{type(e).__name__}: {e}"}
    return dict(t, load=machine)
