"""A program's compiled functions over its run (``inspector run``), each built once from the program probe's raw
facts: what it is, how its calls ended, its steady calls' timing, its calls measured where they happened (``run``),
and what torch.compile made of all of its calls."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple, Optional

from inspector import frames
from inspector.analysis import breaks, compiled, rounds
from inspector.analysis.compiled import Context, Pieces, Seen
from inspector.analysis.facts import CompiledGraph
from inspector.analysis.variants import compile_time, target_of, timing_of, warm
from inspector.model import (Argument, BreakEven, CallKinds, CallRun, CodeLocation, FunctionRun, GaveUp,
                             InternalError, LimitHit, NotTraced, ProgramFunction, Recompile, Replay, StanceRun, Status,
                             UncompiledMethod, Unmeasured, Untraced, UntracedCalls, of_raw)
from inspector.raw import JSON, RawFallbacks, RawRecord, RawRoundTiming, RawRun, RawTiming, RawVariant
from inspector.record import compile_key


def functions(record: RawRecord, context: Context) -> tuple[tuple[ProgramFunction, ...], list[tuple[str, Seen]]]:
    """The program's compiled functions, and what each one's parsers read ((function id, Seen))."""
    raws = record.variants or []
    made = [Made(raw.id or "", raw.process, raw.code.to_json() if raw.code else None, compiled.of_variant(raw))
            for raw in raws]
    made_by = record.program.given("made_by", "run") if record.program else "run"
    found, seen = [], []
    for raw, me in zip(raws, made):
        pieces = me.pieces
        location = of_raw(CodeLocation, raw.code) if raw.code else None
        target = target_of(location, raw.given("function", ""), context) if raw.status == Status.OK else None
        code, s = compiled.build(pieces, target, context)
        run = _run(raw, pieces.graphs, _shared(me, made), _gave_up(location, pieces))
        found.append(ProgramFunction(
            id=raw.id or "", function=raw.given("function", ""), location=location, device=raw.given("device", "cpu"),
            status=Status(raw.status), error=raw.error, timing=timing_of(raw, [], None), run=run,
            code=code, internal_errors=tuple(of_raw(InternalError, e) for e in raw.internal_errors or []),
            arguments=tuple(of_raw(Argument, a) for a in raw.run.arguments) if raw.run and raw.run.arguments is not None
            else None,
            compile_options=raw.run.compile_options if raw.run else None,
            uncompiled=tuple(UncompiledMethod(name, calls)
                             for name, calls in sorted(((raw.run and raw.run.other_methods) or {}).items())),
            process=raw.process, replay=replay(raw, run, made_by, pieces.graphs)))
        seen.append((raw.id or "", s))
    return tuple(found), seen


def _run(raw: RawVariant, graphs: Sequence[CompiledGraph], shared: tuple[list[str], list[str]],
         gave_up: Optional[GaveUp]) -> FunctionRun:
    """A program's compiled function over the run, from the program probe's ``run`` facts and the graphs it compiled,
    with what it ``shared`` with the program's other functions (``_shared``) and where torch ``gave_up`` on its own
    frame. Its recompiles are the compiles torch made of a frame it had compiled before (records before the ``kind``
    of a compile counted every compile after the first call)."""
    run = raw.run
    assert run is not None  # a program's function always has its run
    eager = run.eager or RawTiming.from_json({})
    fallbacks = run.fallbacks or RawFallbacks.from_json({})
    shares_code, inlined_into = shared
    return FunctionRun(
        calls=run.calls or 0, total_s=run.total_s or 0.0, compile_s=compile_time([g.metrics for g in graphs]),
        steady_calls=run.steady_calls or 0, steady_s=run.steady_s or 0.0,
        recompiles=[Recompile(c.call or 0, c.seconds or 0.0, [breaks.failed_guard(r) for r in c.reasons or []],
                              len({compile_key(i) or i for i in c.compile_ids or []}), list(c.compile_ids or []))
                    for c in run.compiles or [] if c.given("kind", "recompile") == "recompile"],
        traced_call=run.traced_call, profiled_call=run.profiled_call,
        compiled_at=run.given("compiled_at", 1 if raw.capture and raw.capture.graphs else None),
        created=raw.created,
        stances=[StanceRun(s.first or 0, s.last or 0, s.stance, s.eager) for s in run.stances or []],
        eager_calls=eager.given("runs", 0) or 0, eager_median_s=eager.median_s,
        fallbacks=fallbacks.given("count", 0) or 0,
        fallback_guards=[(f.call, f.guard) for f in fallbacks.given("first", []) or []],
        shares_code=shares_code, inlined_into=inlined_into, error_call=raw.error_call, kinds=_kinds(raw, run, gave_up),
        untraced=_untraced(run))


def _kinds(raw: RawVariant, run: RawRun, gave_up: Optional[GaveUp]) -> CallKinds:
    """How torch ran the function's calls (the probe's ``kinds``: none in a record from before them), and where it
    hit its recompile limit, with torch's last reason (the guard that failed at the last compile before it)."""
    kinds = run.kinds
    hit = next((c for c in run.compiles or [] if c.kind == "limit"), None)
    limit, last = breaks.limit_hit([t for c in (raw.capture, raw.recompiles) if c for t in c.limits or []])
    return CallKinds(counts=dict((kinds.counts if kinds else None) or {}),
                     runs=[CallRun(r.first or 0, r.last or 0, r.kind or "unknown", list(r.compile_ids or []), r.entry)
                           for r in (kinds.runs if kinds else None) or []],
                     wrappers=run.given("wrappers", 1) or 1, inside=dict(run.inside or {}),
                     limit=LimitHit(hit.call if hit else None, limit, last) if limit is not None else None,
                     gave_up=gave_up)


def _gave_up(code: Optional[CodeLocation], pieces: Pieces) -> Optional[GaveUp]:
    """Where torch gave up compiling the function's own frame (its ``code``), from its own records: its first call's
    compiles' metrics (no guarded code came of it, and why it failed) and the break it could not resume from; None
    where it did not."""
    if code is None:
        return None
    own = (code.name or "", code.file or "", code.line or 0)
    if not any(frames.gave_up(g.metrics or {}, own) for g in pieces.first):
        return None
    stuck = next((b for b in pieces.first_breaks if not b.resumable), None)
    return GaveUp(stuck.line, stuck.in_loop) if stuck else GaveUp(None, False)


def _untraced(run: RawRun) -> UntracedCalls | None:
    """The calls the trace pass left alone (None: a record from before it told them), each failed guard in a few
    words, as a recompile's."""
    if run.untraced is None:
        return None
    return UntracedCalls(run.untraced.count or 0, [
        Untraced(u.call or 0, NotTraced(u.why or "recompile"),
                 tuple(breaks.failed_guard(g) for g in u.guard.split("; ")) if u.guard else ())
        for u in run.untraced.first or []])


class Made(NamedTuple):
    """A program's function as ``_shared`` compares it: its id, its process, where its code is (as the record says
    it), and what it compiled."""

    id: str
    process: Optional[str]
    code: Optional[JSON]
    pieces: Pieces


def _shared(me: Made, made: Sequence[Made]) -> tuple[list[str], list[str]]:
    """(the other functions with the same code object: torch compiles them as one function, recompiling for the
    second and counting both against one recompile limit; for a function torch never compiled itself (never called,
    or called only where its caller ran eagerly), those whose compiled graphs hold its code (their FX graphs' ``#
    File:`` comments)), in its own process."""
    code = me.code
    if not code:
        return [], []
    mine = [m for m in made if m.process == me.process]  # another process's torch compiles on its own
    same = [m.id for m in mine if m is not me and m.code == code]
    if me.pieces.graphs:
        return same, []
    inlined = [m.id for m in mine if m.id != me.id and any(frames.inside(g.fx_graph, code) for g in m.pieces.graphs)]
    return same, inlined


def replay(raw: RawVariant, run: FunctionRun, made_by: str, graphs: Sequence[CompiledGraph]) -> Optional[Replay]:
    """Whether compiling paid, from the replay's rounds (``run.replay``) and the run's compile time and calls (those
    that ran compiled code; ``graphs``: those torch found in its caches, their first compile as kept); None for the
    Python API's records and functions never called."""
    if made_by != "run" or not run.calls:
        return None
    facts = raw.run.replay if raw.run else None
    if facts is None:
        return Replay(why=Unmeasured.NO_REPLAY)
    base = Replay(call=facts.call, copied_bytes=facts.bytes or 0, compiles=facts.compiles or 0,
                  compile_s=run.compile_s, calls=_compiled_calls(run),
                  first_compile_s=compile_time([(g.kept or {}).get("metrics") if g.kept else g.metrics for g in graphs])
                  if any(g.kept for g in graphs) else None)
    eager, compiled_ = _medians(facts.eager or []), _medians(facts.compiled or [])
    side = rounds.side_by_side(eager, compiled_)
    if facts.why or not side or run.compile_s is None:
        return replace(base, why=facts.why or (Unmeasured.NO_ROUND if not side else Unmeasured.NO_COMPILE_TIME),
                       needed_s=run.compile_s / base.calls if run.compile_s and base.calls else None)
    eager_s, compiled_s = statistics.median(eager.values()), statistics.median(compiled_.values())
    gain = eager_s - compiled_s
    rerun = warm(raw.warm) if raw.warm and not raw.warm.during_run else None
    return replace(base, eager_s=eager_s, compiled_s=compiled_s, spread=(side[1][0], side[1][1]),
                   rounds=len(side[2]), saved_s=gain * base.calls,
                   pays_after=run.compile_s / gain if gain > 0 else None,
                   warm=BreakEven(rerun.compile_s / gain if gain > 0 else None)
                   if rerun and rerun.compile_s is not None else None,
                   first=BreakEven(base.first_compile_s / gain if gain > 0 else None)
                   if base.first_compile_s is not None else None)


def _compiled_calls(run: FunctionRun) -> int:
    """The calls that ran compiled code: as torch ran them (first, recompile, cached), else (an older record) all
    but those that ran eagerly."""
    counts = run.kinds.counts
    if counts:
        return sum(counts.get(kind, 0) for kind in ("first", "recompile", "cached"))
    return max(0, run.calls - run.eager_calls)


def _medians(timed: list[RawRoundTiming]) -> dict[int, float]:
    """{round: median seconds} of the rounds that timed (not those that raised)."""
    return {t.round if t.round is not None else i: t.median_s for i, t in enumerate(timed)
            if t.median_s is not None and not t.error}
