"""One model of recompilation: how often a compiled variant compiled again after its first call, why (the guards
that failed), and whether Dynamo gave up (its recompile limit), from the raw facts of the probe's passes."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from collections.abc import Sequence
from typing import Optional

from inspector.analysis.parse.breaks import RESUMED_AT
from inspector.raw import RawCapture, RawGraph
from inspector.model import Guard, Recompilation
from inspector.record import compile_key

LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")
LAST_REASON = re.compile(r"last reason: (.+)")  # the limit warning's: the guard that failed at the last compile
COMPILE_ID = re.compile(r"^\d+/\d+(?:_\d+)?:\s*")
VALUE = re.compile(r"(==\s*)-?\d[\d.e+-]*")
OBJECT_ID = re.compile(r"(___check_obj_id\([^,]+,\s*)\d+")  # a fresh object each call: another id each time
USER_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\w+)')  # the user stack under a recompile reason
# the guard's source comment, "  # gbest = best[i]  # mp/pso.py:89 in step": torch cuts the path short from the left
COMMENT_AT = re.compile(r"#\s*([^\s#]+):(\d+) in (\w+)")
STACK_VALUE = re.compile(r"^___stack\d+")  # a value on the stack at a break, passed to the code after it
EVERY_CALL_MIN = 3  # fewer recompiles than this are not a pattern


def recompilation(capture: RawCapture, recompiles: RawCapture, watched: bool, calls: Optional[int],
                  recompiled_in: Optional[Sequence[int]] = None) -> Optional[Recompilation]:
    """A function's Recompilation from what its first call compiled (``capture``) and what later calls compiled
    (``recompiles``) over its ``calls`` after the first, or None when it never compiled again after its first call.
    ``watched``: a program's function (its whole run watched), whose first compile torch may have made as a
    recompile (a shared code object); ``recompiled_in``: its calls in which torch recompiled (several recompiles in
    one call, nested frames', are not a recompile on every call)."""
    graphs = [g for g in recompiles.graphs or [] if not _limit_attempt(g)]
    if watched:
        graphs = [g for g in capture.graphs or [] if (compile_key(g.compile_id) or (0, 0))[1] > 0] + graphs
    texts = (capture.limits or []) + (recompiles.limits or [])
    limits = [m for text in texts if (m := LIMIT.search(text))]
    if not graphs and not limits:
        return None
    counted: dict[Guard, int] = {}
    for g in graphs:
        reason = ((g.metrics or {}).get("recompile_reason") or "").strip()
        if reason:  # one guard, whatever value or object it held each time: "G['CALLS']['n'] == …"
            found = failed_guard(reason)
            guard = replace(found, text=OBJECT_ID.sub(r"\1…", VALUE.sub(r"\1…", found.text)))
            counted[guard] = counted.get(guard, 0) + 1
    count = len({compile_key(g.compile_id) or g.compile_id for g in graphs})  # 2/1_1 is 2/1 again
    every_call = bool(calls and count >= EVERY_CALL_MIN and (
        count >= calls - 1 if recompiled_in is None else set(range(2, calls + 2)) <= set(recompiled_in)))
    limit = f"{limits[0].group(1)} = {limits[0].group(2)}" if limits else None
    guards = sorted(counted.items(), key=lambda kv: -kv[1])
    last = next((m.group(1) for text in texts if (m := LAST_REASON.search(text))), None)
    return Recompilation(count, calls, every_call, limit, guards, failed_guard(last) if limit and last else None)


def _limit_attempt(graph: RawGraph) -> bool:
    """Whether a compile id is Dynamo's attempt that stopped at the recompile limit (no graph: not a recompile)."""
    reason = str((graph.metrics or {}).get("fail_reason") or "")
    return "recompile limit" in reason.lower() and not graph.output_code and not graph.fx_graph


def failed_guard(reason: str) -> Guard:
    """A failed guard, from torch's recompile reason: its first line without the compile id and the source comment,
    and where the guarded code is, from the reason's user stack, else from the end of that comment (torch adds the
    stack only where the guard kept one)."""
    first = COMPILE_ID.sub("", reason.strip().splitlines()[0]) if reason.strip() else ""
    text, _, comment = first.partition("  #")
    text = " ".join(text.split())
    frames = USER_FRAME.findall(reason) or COMMENT_AT.findall(comment)[:1]
    if not frames:
        return Guard(text)
    path, line, function = frames[-1]
    resumed, stacked = RESUMED_AT.match(function), STACK_VALUE.match(text)
    carried = bool(resumed and stacked)  # torch's resume function names the break's line
    return Guard(text, function.startswith("torch_dynamo_resume_in_"), int(resumed.group(1)) if resumed and carried
                 else None, stacked.group(0) if stacked and carried else None, file=os.path.basename(path),
                 line=int(line))
