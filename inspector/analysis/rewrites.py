"""The rewrites inspector wrote (the record's ``rewrites``, from ``inspector.rewrite`` in inspector's process) and
what the probe measured running them (its ``trials`` that name one): each a ``Rewritten`` with its check and runs,
each run's figures against the variant it replaces and the family's variants the user wrote, from the same rounds.
The user's own figures (vs NumPy, vs the fastest, break-even) never count a rewrite: those are ``variants``'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from inspector.analysis import rounds
from inspector.analysis.variants import timing_from
from inspector.model import (Arm, Declined, Drawn, Note, RewriteCheck, RewriteRun, Rewritten, SampleVariant, Status,
                             Timing)
from inspector.model.rewrites import AS_WRITTEN
from inspector.raw import RawRecord, RawRewriteCheck, RawRoundTiming, RawTrial




def rewrites(record: RawRecord, variants: Sequence[SampleVariant]) -> tuple[Rewritten, ...]:
    """Each rewrite of the record, with its check and the runs of it the probe measured."""
    timed = (record.rounds.variants if record.rounds else None) or {}
    population = record.sample.population if record.sample else None
    found = []
    for raw in record.rewrites or []:
        replaced = next((v for v in variants if v.id == raw.variant), None)
        mine = [t for t in record.trials or [] if t.rewrite == raw.id]
        checked = next((check_of(t.check) for t in mine if t.check), None)
        # the user's lines it is about: those a break's rewrite changes, the functions a vectorized one replaces
        spans = [c.span for c in raw.changes or [] if c.span] if raw.kind == "breaks" else []
        spans = spans or list(raw.replaces or [])
        found.append(Rewritten(
            id=raw.id or "", variant=raw.variant or "", function=raw.target or "",
            family=replaced.family if replaced else "", kind=raw.kind or "", dialect=raw.dialect or "",
            source=raw.source, diff=raw.diff,
            lines=tuple((s.file, line) for s in spans for line in range(s.first or 0, (s.last or 0) + 1)),
            changes=tuple(c.kind or "" for c in raw.changes or []),
            notes=tuple(Note(n.topic or "", n.line, n.code or "") for n in raw.notes or []),
            declined=tuple(Declined(d.construct or "", d.code or "", d.reason or "", d.detail or "",
                                    file=d.span.file if d.span else None, line=d.span.first if d.span else None)
                           for d in raw.declined or []),
            check=checked, runs=tuple(run(t, next((v for v in variants if v.id == t.variant), None),
                                          replaced.family if replaced else "", variants, timed.get(t.id or "") or [],
                                          population) for t in mine)))
    return tuple(found)


def run(raw: RawTrial, replaced: Optional[SampleVariant], family: str, variants: Sequence[SampleVariant],
        timed: list[RawRoundTiming], population: Optional[int]) -> RewriteRun:
    """One run of a rewrite, timed in the rounds beside the variants: its figures against theirs (``replaced``: the
    variant it ran beside, None where that did not run; ``family``: the replaced variant's)."""
    timing = timing_from(raw.timing, timed, graphs=(raw.capture.graphs if raw.capture else None) or []
                         if raw.compiled else None, measured=None, population=population)
    side = rounds.side_by_side(replaced.timing.rounds_s, timing.rounds_s) if (
        replaced and replaced.timing and timing) else None
    speedup = side[0] if side else _over(replaced.timing if replaced else None, timing)
    vs = {v.id: r for v in variants if v.family == family and v.status == Status.OK and not v.failed
          and (r := _over(v.timing, timing))}
    fastest = min(vs, key=lambda vid: vs[vid], default=None)
    return RewriteRun(
        id=raw.id or "",
        how=AS_WRITTEN if raw.fix == AS_WRITTEN else "numba" if raw.numba else "compiled" if raw.compiled else "eager",
        status=Status(raw.status or "error"), error=raw.error, matches=raw.matches_variant, mismatch=raw.mismatch,
        timing=timing, speedup=speedup, spread=(side[1][0], side[1][1]) if side else None,
        rounds=len(side[2]) if side else 0, fastest=fastest, vs_fastest=vs.get(fastest) if fastest else None, vs=vs)


def beats(r: Rewritten) -> Optional[RewriteRun]:
    """The fastest run of an advised rewrite that is faster than every variant the user wrote, or None."""
    faster = [x for x in r.runs if x.ok and x.vs_fastest and x.vs_fastest > 1 and x.how != AS_WRITTEN]
    return max(faster, key=lambda x: x.vs_fastest or 0, default=None) if r.advice else None


def _over(reference: Optional[Timing], t: Optional[Timing]) -> Optional[float]:
    """How many times faster ``t`` ran than ``reference`` (per population), or None."""
    return reference.per_population_s / t.per_population_s if reference and t and t.per_population_s else None


def check_of(raw: RawRewriteCheck) -> RewriteCheck:
    """A rewrite's check as the probe recorded it."""
    m = raw.mismatch
    return RewriteCheck(
        target=raw.target or "", entry=raw.entry or "", population_dtype=raw.population_dtype or "",
        matched=raw.verdict == "matched", unit=raw.unit or "individuals", evaluations=raw.evaluations or 0,
        rtol=raw.rtol or 0.0, individual=m.individual if m else None, expected=m.expected if m else None,
        got=m.got if m else None, raised=bool(m and m.raised), differing=m.differing or 0 if m else 0,
        error=raw.error, result_dtype=raw.result_dtype,
        arms=tuple(Arm(a.branch.function or "", a.branch.line or 0, a.branch.code or "", bool(a.taken), a.count or 0)
                   for a in raw.arms or [] if a.branch),
        drawn=Drawn(d.population or 0, d.sample or 0, d.witnesses or 0, d.looked_at or 0) if (d := raw.drawn) else None)

