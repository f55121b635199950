"""Timing again in rounds, at the parent's request, so that runs compared with each other see the same machine.

After its variants, a probe started with ``--rounds`` says which it can time again (``Ready``) and waits on stdin,
its OpenMP threads asleep (libgomp spins only briefly before it waits); each ``Round`` command the parent writes
there (``inspector.probe.messages``) times each of those variants for its ``budget_s`` seconds, their order rotated
by its ``round``, answered with a ``RoundResult``; a ``Trial`` tries a fix (``inspector.probe.trials``), answered
with a ``TrialAnswer``, and the rounds then time it too: a fix in a turn of its own, a rewrite's run
(``RewriteTrial``) in the turn of the variant it runs beside, right after it, the runs of a variant's rewrites
sharing half of that turn's budget (GUESTS_SHARE; ``turn``), so that the rewrites make the rounds little longer.
The parent gives the runs their turns in alternating order; stdin's end ends the probe.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable
from typing import Any, Optional

from inspector.probe import load
from inspector.probe.messages import (COMMANDS, Message, Ready, RewriteTrial, Round, RoundResult, Trial, TrialAnswer,
                                      read)
from inspector.probe.timing import measure, once
from inspector.raw import RawRoundTiming

Timed = tuple[Callable[[], Any], Callable[[], Any]]  # a variant's (call, sync)
GUESTS_SHARE = 0.5  # of a variant's turn's budget, what the runs of its rewrites timed in its turn share


def serve(timed: dict[str, Timed], emit: Callable[[Message], None], compiled: Collection[str] = (),
          commands: Iterable[str] = sys.stdin,
          trial: Optional[Callable[[Trial], tuple[TrialAnswer, Optional[Timed]]]] = None) -> None:
    """Time the variants ``timed`` ({id: (call, sync)}) once per ``Round`` asked for on ``commands``, after one
    untimed call of each ``compiled`` one: run before a later variant's ``torch._dynamo.reset()``, it compiles again
    there (the same code: same function, config and inputs), and its seconds are in ``Ready``. ``trial(command)``:
    (its answer, (call, sync) to time in the rounds or None)."""
    ids = list(timed)
    guests: dict[str, list[str]] = {}  # a variant's id -> the rewrites' runs timed in its turn
    warmed = {vid: warm(*timed[vid]) for vid in ids if vid in compiled}
    emit(Ready(ids=list(ids), warmup_s=warmed))
    for line in commands:
        match read(line, COMMANDS):
            case Trial() as ask if trial is not None:
                answer, again = trial(ask)
                emit(answer)
                if again and ask.id:
                    timed[ask.id] = again
                    if isinstance(ask, RewriteTrial) and ask.variant in ids:
                        guests.setdefault(ask.variant, []).append(ask.id)
                    else:
                        ids.append(ask.id)
            case Round(round=int(number), budget_s=int() | float() as budget_s):
                k = number % max(1, len(ids))
                turns: dict[str, dict[str, Any]] = {}
                for vid in ids[k:] + ids[:k]:
                    turns[vid] = turn(*timed[vid], budget_s)
                    mine = guests.get(vid, [])
                    g = number % max(1, len(mine))
                    for gid in mine[g:] + mine[:g]:
                        turns[gid] = turn(*timed[gid], budget_s * GUESTS_SHARE / len(mine), turn_s=budget_s)
                emit(RoundResult(round=number, variants={
                    vid: RawRoundTiming.from_json(t) for vid, t in turns.items()}))
            case other:
                raise ValueError(f"not a command this probe takes: {line[:200]!r} ({type(other).__name__})")


def warm(call: Callable[[], Any], sync: Callable[[], Any]) -> Optional[float]:
    """Seconds of one untimed call (it may compile), or None when it raised."""
    try:
        return once(call, sync)
    except Exception:  # said by the round's {error}
        return None


def turn(call: Callable[[], Any], sync: Callable[[], Any], budget_s: float, turn_s: Optional[float] = None
         ) -> dict[str, Any]:
    """{median_s, min_s, max_s, runs, number, calls, load} of one variant's turn (a replayed function's too), or
    {error} if the call now fails. A call that alone takes the round's budget is the round's one sample; shorter
    ones are timed in blocks. ``turn_s``: a rewrite's run in a variant's turn (of ``turn_s`` seconds), on a share of
    it (``budget_s``): its first call is also the estimate the blocks are sized from (no call more), and a call
    longer than the share but not than the turn is called once more, so that its sample is a warm call, as a
    variant's is."""
    def timed() -> dict[str, Any]:
        first = once(call, sync)
        if first >= (turn_s or budget_s):
            return {"median_s": first, "min_s": first, "max_s": first, "runs": 1, "number": 1, "calls": 1}
        if first >= budget_s:  # a guest's call that fills its share: its one sample, warm
            again = once(call, sync)
            return {"median_s": again, "min_s": again, "max_s": again, "runs": 1, "number": 1, "calls": 2}
        # the estimate is one more call, or a guest's first
        t = measure(call, sync, budget_s - first, first_call_s=0.0, min_runs=1,
                    estimate_s=None if turn_s is None else first)
        return dict({k: t[k] for k in ("median_s", "min_s", "max_s", "runs", "number")},
                    calls=(2 if turn_s is None else 1) + t["runs"] * t["number"])
    try:
        t, machine = load.during(timed)
    except Exception as e:  # it ran before; what changed is the user's doing, not a reason to stop the others
        return {"error": f"{type(e).__name__}: {e}"}
    return dict(t, load=machine)
