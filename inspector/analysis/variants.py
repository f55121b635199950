"""A sample's variants, each built once from its raw facts (``variants``): what it is, how its run ended and was
checked, its timing and speedups against its family's eager variants, what torch.compile made of it, and the fixes
tried on it; and each size of a population sweep (``sweep``), timed only. Timings and speedups are shared with a
program's functions and the fixes tried (``timing``), as is how busy the machine was while a variant was timed, and
when that makes its time suspect (``over``)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Optional

from inspector.analysis import compiled, cost, fixes, rounds
from inspector.analysis.compiled import Context, Seen, Target
from inspector.model import (BreakEven, CodeLocation, CompiledCode, CrossCheck, Crossover, InternalError, MachineLoad,
                             SampleVariant, Speedups, Status, SweepEntry, SweepPoint, Timing, Transfer, TrialResult,
                             Unmeasured, WarmCompile, of_raw)
from inspector.model.timing import OTHERS_BUSY, STEAL_BUSY
from inspector.raw import JSON, RawGraph, RawLoad, RawRecord, RawRoundTiming, RawTiming, RawTrial, RawVariant, RawWarm

MIN_WINDOW_CPU_S = 0.5  # /proc/stat counts in 10 ms ticks: a shorter window (wall x CPUs) cannot tell


def variants(record: RawRecord, context: Context) -> tuple[tuple[SampleVariant, ...], list[tuple[str, Seen]]]:
    """The record's variants, and what each one's parsers read ((variant id, Seen))."""
    population = record.sample.population if record.sample else None
    timed = (record.rounds.variants if record.rounds else None) or {}
    raws = record.variants or []
    timings = {raw.id: timing_of(raw, timed.get(raw.id or "") or [], population) for raw in raws}
    speeds = speedups([(raw, timings[raw.id]) for raw in raws])
    found, seen = [], []
    for raw in raws:
        tried = [t for t in record.trials or [] if t.variant == raw.id and not (t.rewrite or t.numba)]
        v, s = _variant(raw, timings[raw.id], speeds[raw.id or ""], tried, timed, population, context)
        found.append(v)
        seen.append((v.id, s))
    return tuple(found), seen


def _variant(raw: RawVariant, timing: Optional[Timing], speeds: Speedups, tried: Sequence[RawTrial],
             timed: dict[str, list[RawRoundTiming]], population: Optional[int],
             context: Context) -> tuple[SampleVariant, Seen]:
    """One SampleVariant, and what its parsers read."""
    location = of_raw(CodeLocation, raw.code) if raw.code else None
    target = target_of(location, raw.given("function", ""), context) if raw.compiled else None
    # its call set against its parts: the probe's own timings (never the rounds after the trials, which would change
    # a precondition between the trials' choice and the report)
    code, seen = compiled.build(compiled.of_variant(raw), target if raw.status == Status.OK else None, context)
    trials = tuple(_trial(t, timing, code, target, timed.get(t.id or "") or [], population, context)
                   for t in tried)
    return SampleVariant(
        id=raw.id or "", function=raw.given("function", ""), kind=raw.kind or "", compiled=bool(raw.compiled),
        device=raw.given("device", "cpu"), preview=bool(raw.preview), family=raw.given("family", ""),
        location=location, status=Status(raw.status), error=raw.error, error_line=raw.error_line,
        error_stage=raw.error_stage, error_detail=raw.error_detail,
        check=CrossCheck(raw.checked_against, raw.matches_reference, raw.mismatch), timing=timing, speedups=speeds,
        code=code, trials=trials, internal_errors=tuple(of_raw(InternalError, e) for e in raw.internal_errors or []),
        peak_memory_bytes=raw.peak_memory.bytes if raw.peak_memory else None), seen


def _trial(raw: RawTrial, timing: Optional[Timing], code: CompiledCode, target: Optional[Target],
           timed: list[RawRoundTiming], population: Optional[int], context: Context) -> TrialResult:
    """What a fix tried on a variant measured: its own compiled code analysed as the variant's (its lines against
    the variant's source), timed beside it."""
    pieces = compiled.read(raw.capture or compiled.NONE, compiled.NONE, False, raw.sizes or ())
    after, _ = compiled.build(pieces, target if raw.status == Status.OK else None, context)
    after_timing = timing_from(raw.timing, timed, graphs=(raw.capture.graphs if raw.capture else None) or [],
                               measured=None, population=population)
    return fixes.result(raw, timing, code, after_timing, after)


def target_of(location: Optional[CodeLocation], function: str, context: Context) -> Target:
    """The function whose lines a compiled variant's verdicts cover: where its code is (else the sample), named as
    its file names it (a sample's variant: as the sample does)."""
    file = context.sources.by_path.get(location.file or "" if location else "") or context.sources.files[0]
    return Target(file, location.name or function if location and file.kind != "sample" else function)


def timing_of(raw: RawVariant, timed: Sequence[RawRoundTiming], population: Optional[int]) -> Optional[Timing]:
    """A variant's Timing (``timed``: its alternating rounds)."""
    t = timing_from(raw.timing, timed, graphs=(raw.capture.graphs if raw.capture else None) or [] if raw.compiled
                    else None, measured=raw.measured_population, population=population,
                    load=over([raw.load] if raw.load else []),
                    transfer=of_raw(Transfer, raw.transfer) if raw.transfer else None)
    return replace(t, warm=warm(raw.warm)) if t and raw.warm else t


def warm(raw: RawWarm) -> WarmCompile:
    """A compile on a rerun (``inspector.probe.warm``): torch's compile time for it (else its first call minus its
    steady one), by phase, with the caches' outcomes."""
    compile_s = compile_time(raw.metrics) if raw.metrics is not None else None
    if compile_s is None and raw.first_call_s is not None:
        compile_s = max(0.0, raw.first_call_s - (raw.steady_s or 0.0))
    if raw.error or compile_s is None:
        return WarmCompile(None, None, None, None, raw.processes or 0, raw.cache_dir, raw.compiler_start_s,
                           raw.error or Unmeasured.NOTHING_COMPILED)
    phases = cost.phases([(m, _outcome(m)) for m in raw.metrics or [] if m])
    return WarmCompile(compile_s, raw.first_call_s, raw.steady_s, phases, raw.processes or 1,
                       raw.cache_dir, raw.compiler_start_s, during_run=bool(raw.during_run))


def _outcome(metrics: JSON) -> Optional[str]:
    """What Inductor's FX graph cache did for one compiled frame, from its metrics' counts (as the trace names it)."""
    if metrics.get("inductor_fx_local_cache_miss_count"):
        return "miss"
    return "hit" if metrics.get("inductor_fx_local_cache_hit_count") else None


def timing_from(t: Optional[RawTiming], timed: Sequence[RawRoundTiming], *, graphs: Optional[list[RawGraph]],
                measured: Optional[int], population: Optional[int], load: Optional[MachineLoad] = None,
                transfer: Optional[Transfer] = None) -> Optional[Timing]:
    """The Timing of timed runs (``graphs``: what a compiled function compiled, for its compile time; None: eager).
    Timed again in alternating rounds (``timed``), its figures are the rounds' (median of the rounds' medians, lowest
    and highest run, runs in all), so that a row's time and its ratios, taken from the same rounds, agree; the first
    timing before the rounds stays in the record. None where nothing was timed (a fix tried is timed in the rounds
    alone)."""
    timed = [r for r in timed if r.median_s]
    if not t or (t.median_s is None and not timed):
        return None
    if timed:
        t = t.but(median_s=statistics.median(r.median_s for r in timed if r.median_s),
                  min_s=min(r.min_s or 0.0 for r in timed), max_s=max(r.max_s or 0.0 for r in timed),
                  runs=sum(int(r.given("runs", 0) or 0) for r in timed))
    median = t.median_s or 0.0
    compile_s = None
    if graphs is not None:
        compile_s = compile_time([g.metrics for g in graphs])
        if compile_s is None and t.first_call_s is not None:
            compile_s = max(0.0, t.first_call_s - median)
    scale = population / (measured or population) if population else 1.0
    return Timing(median_s=median, min_s=t.min_s or 0.0, max_s=t.max_s or 0.0, runs=t.given("runs", 0) or 0,
                  number=t.given("number", 1) or 1, first_call_s=t.first_call_s, samples_s=tuple(t.samples_s or ()),
                  per_population_s=median * scale, compile_s=compile_s,
                  rounds_s={r.round: (r.median_s or 0.0) * scale for r in timed if r.round is not None}, scale=scale,
                  measured_population=measured, load=load, transfer=transfer)


def compile_time(metrics: Sequence[Optional[JSON]]) -> Optional[float]:
    """torch's compile time over compiled frames, from their ``metrics`` (entire_frame_compile_time_s), or None where
    none says."""
    times = [t for m in metrics if (t := (m or {}).get("entire_frame_compile_time_s"))]
    return sum(times) if times else None


def speedups(timed: Sequence[tuple[RawVariant, Optional[Timing]]]) -> dict[str, Speedups]:
    """{variant id: its Speedups}: against the fastest eager Python and NumPy variants of its family (with their
    spread where both were timed in rounds), and break-even against the fastest eager NumPy or torch one."""
    def best(kind: str, family: str) -> Optional[Timing]:
        return min((t for raw, t in timed if t and raw.kind == kind and raw.given("family", "") == family
                    and not raw.compiled and raw.status == Status.OK), key=lambda t: t.per_population_s, default=None)

    found = {}
    for raw, t in timed:
        family = raw.given("family", "")
        python, numpy = best("python", family), best("numpy", family)
        eager = [b.per_population_s for b in (numpy, best("torch", family)) if b]
        (vs_python, python_spread), (vs_numpy, numpy_spread) = _speedup(python, t), _speedup(numpy, t)
        best_eager = min(eager) if eager else None
        found[raw.id or ""] = Speedups(vs_python, vs_numpy, python_spread, numpy_spread,
                                       _break_even(bool(raw.compiled), t, t.compile_s if t else None, best_eager),
                                       _break_even(bool(raw.compiled), t, t.warm.compile_s if t and t.warm else None,
                                                   best_eager))
    return found


def _speedup(reference: Optional[Timing],
             t: Optional[Timing]) -> tuple[Optional[float], Optional[tuple[float, float]]]:
    """(how many times faster ``t`` ran than ``reference``: the ratio of the times their rows show, (lowest, highest)
    of the rounds' side-by-side ratios where both were timed in the same alternating rounds, else None)."""
    if not reference or not t:
        return None, None
    side = rounds.side_by_side(reference.rounds_s, t.rounds_s)
    return reference.per_population_s / t.per_population_s, (side[1][0], side[1][1]) if side else None


def _break_even(compiled_: bool, t: Optional[Timing], compile_s: Optional[float], eager: Optional[float]
                ) -> Optional[BreakEven]:
    """Calls after which a compile of ``compile_s`` paid off against the best eager variant (``calls`` None:
    never)."""
    if not compiled_ or not eager or not t or compile_s is None:
        return None
    gain = eager - t.per_population_s
    return BreakEven(compile_s / gain if gain > 0 else None)


CALLS = 1000  # calls over which a sweep's crossover pays the compile: a GA's 1,000 generations


def crossovers(points: Sequence[SweepPoint]) -> dict[str, Crossover]:
    """{family: where on the sweep ``points`` its compiled variant (the fastest compiled one at the largest size)
    overtakes the fastest eager one at each size: per call, and with its compile paid over CALLS calls}; none for a
    family without both at every size."""
    if len(points) < 2:
        return {}
    ordered = sorted(points, key=lambda p: p.population)
    found = {}
    for family in dict.fromkeys(e.family for e in ordered[-1].variants):
        best = _fastest(ordered[-1], family, True)
        if best is None:
            continue
        # (size, the compiled variant's seconds per call, its compile, the fastest eager one's) at every size
        times = [(p.population, c.timing.per_population_s, c.timing.compile_s or 0.0, e.timing.per_population_s)
                 for p in ordered for c, e in [(_fastest(p, family, True, best.id), _fastest(p, family, False))]
                 if c and e and c.timing and e.timing]
        if len(times) == len(ordered):
            found[family] = Crossover(best.id, *_from([(n, c < e) for n, c, _, e in times]), CALLS,
                                      *_from([(n, c + s / CALLS < e) for n, c, s, e in times]))
    return found


def _fastest(p: SweepPoint, family: str, compiled_: bool, vid: Optional[str] = None) -> Optional[SweepEntry]:
    """The fastest variant of ``family`` that ran at a sweep's size, compiled or eager (``vid``: that one only)."""
    return min((e for e in p.variants if e.family == family and e.compiled == compiled_ and e.status == Status.OK
                and e.timing and vid in (None, e.id)), key=lambda e: e.timing.per_population_s if e.timing else 0.0,
               default=None)


def _from(faster: list[tuple[int, bool]]) -> tuple[Optional[int], Optional[int]]:
    """(the smallest size from which it is faster at every size, the size below it), or (None, None)."""
    at = len(faster)
    while at and faster[at - 1][1]:
        at -= 1
    if at == len(faster):
        return None, None
    return faster[at][0], faster[at - 1][0] if at else None


def sweep(record: RawRecord) -> tuple[SweepPoint, ...]:
    """Each size of a population sweep: every variant's timing (its rounds') and speedups there."""
    points = []
    for point in record.sweep or []:
        raws = point.variants or []
        timings = {raw.id: timing_of(raw, raw.rounds or [], point.population) for raw in raws}
        speeds = speedups([(raw, timings[raw.id]) for raw in raws])
        points.append(SweepPoint(point.population or 0, tuple(
            SweepEntry(raw.id or "", raw.kind or "", bool(raw.compiled), raw.given("family", ""), Status(raw.status),
                       timings[raw.id], speeds[raw.id or ""]) for raw in raws)))
    return tuple(points)


def over(windows: list[RawLoad]) -> Optional[MachineLoad]:
    """The MachineLoad over timing windows (one, or several with their CPU seconds added up; a share none of them
    measured is None); None without any."""
    if not windows:
        return None
    cpus = max(w.cpus or 1 for w in windows)
    wall = sum((w.wall_s or 0.0) * (w.cpus or 1) for w in windows) / cpus
    long_enough = wall * cpus >= MIN_WINDOW_CPU_S
    others_s = [w.others_cpu_s for w in windows if w.others_cpu_s is not None]
    steal_s = [w.steal_s for w in windows if w.steal_s is not None]
    total_s = sum(w.cpu_total_s or 0.0 for w in windows)
    others = sum(others_s) / (wall * cpus) if others_s and long_enough else None
    steal = sum(steal_s) / total_s if steal_s and total_s and long_enough else None
    loadavg = max((x for w in windows for x in w.loadavg or [] if x is not None), default=None)
    return MachineLoad(others, steal, loadavg, cpus, others is not None and others >= OTHERS_BUSY,
                       steal is not None and steal >= STEAL_BUSY)
