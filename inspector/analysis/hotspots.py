"""A program's hot functions from the record (``program.hotspots``): each experiment run's time for one round of
the program, its speedup and break-even, and the run projected with the fastest run whose output matched."""

from __future__ import annotations

import statistics
from typing import Optional

from inspector.analysis.variants import over
from inspector.model import of_raw
from inspector.model.hotspots import Captured, CheckFailure, ExperimentRun, HotLine, HotRewrite, Hotspot, Site
from inspector.model.rewrites import Note
from inspector.raw import RawExperiment, RawExperimentRun, RawHotspot, RawRewrite

# the sampled rounds are counted as the run's where each round is long enough for samples to fall in it (about 4
# samples of 5 ms) and the rounds are apart by enough samples that none merged
COUNTED_ROUND_S = 0.02
COUNTED_GAP = 3


def hotspot(h: RawHotspot, wall_s: Optional[float]) -> Hotspot:
    captured = of_raw(Captured, h.captured, calls=h.captured.calls or h.captured.rows or 0) if h.captured else None
    e = h.experiment or RawExperiment()
    # a round's time from the copied rows' (per-individual calls scale with the individuals; a population is whole)
    scale = captured.calls / captured.rows if captured and captured.rows and h.shape == "individual" else 1.0
    runs = _runs(e.runs or [], scale)
    written = next((r for r in runs if r.id == "as-written"), None)
    good = [r for r in runs if r.id != "as-written" and r.matches and r.per_round_s]
    # the run's rounds: those the samples fell in and those inspector's call hook saw begin, where each was long enough
    # and far enough from the next to be seen apart (a lower bound); else the function's time over one round's as
    # written (the copied round's calls may cost less or more than the run's others), at least those where they were
    # apart (closer, a round's calls with a sample between them may count as two)
    sampled, total = (h.rounds_sampled or 0) + (h.rounds_watched or 0), h.total_s or 0.0
    apart = h.round_gap_samples is None or h.round_gap_samples >= COUNTED_GAP
    counted = bool(sampled and total / sampled >= COUNTED_ROUND_S and apart)
    estimated = total / written.per_round_s if written and written.per_round_s and total else None
    rounds = float(sampled) if counted else max(estimated, sampled if apart else 0) if estimated else None
    # the fastest over this run's rounds, its compile included (per round where the rounds are not known)
    def over_the_run(r: ExperimentRun) -> float:
        return (r.per_round_s or 0.0) * (rounds or 1.0) + ((r.compile_s or 0.0) if rounds else 0.0)
    written_s = over_the_run(written) if written else None
    best = min((r for r in good if written_s is None or over_the_run(r) < written_s), key=over_the_run,
               default=None)
    # the run the projection starts from: its wall time less the time inspector's call hook was on (its samples'
    # share of what is left is the function's total_s)
    run_s = h.total_s / h.share if h.total_s and h.share else wall_s
    projected = None
    if best and best.per_round_s and rounds and run_s:
        projected = run_s - (h.total_s or 0.0) + rounds * best.per_round_s + (best.compile_s or 0.0)
    ordered = sorted(runs, key=lambda r: (r.id != "as-written", not r.matches, r.per_round_s or float("inf")))
    load = over([x.load for r in e.runs or [] for x in r.rounds or [] if x.load])
    to_array = e.to_array.median_s * scale if e.to_array and e.to_array.median_s is not None else None
    per = (h.share or 0.0) / h.samples if h.samples else 0.0  # a hot line's samples, as a share of the run's
    hot = tuple(HotLine(x.line or 0, (x.samples or 0) * per, x.into, x.into_samples * per if x.into_samples else None,
                        x.within, x.within_samples * per if x.within_samples else None) for x in h.lines or [])
    return Hotspot(id=h.id or "", function=h.function or "", file=h.file or "", line=h.line or 0,
                   share=h.share or 0.0, total_s=h.total_s or 0.0, shape=h.shape or "unknown", why=h.why or "",
                   callers=tuple(of_raw(Site, s) for s in h.callers or []), captured=captured,
                   rewrites=tuple(_rewrite(r) for r in e.rewrites or []), runs=tuple(ordered), rounds=rounds,
                   best=best.id if best else None, projected_s=projected, experiment_why=e.why or "",
                   load=load, run_s=run_s, lines=hot, rounds_counted=counted,
                   to_array_s=to_array)


def _runs(raw: list[RawExperimentRun], scale: float) -> list[ExperimentRun]:
    """Each run's figures for a whole round; the compiled ones' break-even against the fastest eager run."""
    medians = {r.id or "": [x.median_s for x in r.rounds or [] if x.median_s] for r in raw}  # each round's
    timed = {run: statistics.median(rounds) if rounds else None for run, rounds in medians.items()}
    eager = [s for r in raw if not r.compiled and r.matches is not False and (s := timed[r.id or ""]) is not None]
    fastest_eager = min(eager, default=None)
    written = timed.get("as-written")
    found = []
    for r in raw:
        median, rounds = timed[r.id or ""], medians[r.id or ""]
        compile_s = max(0.0, r.first_call_s - median) if r.compiled and r.first_call_s and median else None
        pays = None
        if compile_s is not None and median is not None and fastest_eager is not None and median < fastest_eager:
            pays = compile_s / ((fastest_eager - median) * scale)
        found.append(ExperimentRun(
            id=r.id or "", dialect=(r.rewrite or ""), compiled=bool(r.compiled),
            per_round_s=median * scale if median is not None else None,
            low_s=min(rounds) * scale if rounds else None, high_s=max(rounds) * scale if rounds else None,
            compile_s=compile_s, matches=r.matches, problem=r.error or r.mismatch or "",
            faster=written / median if written and median else None, pays_after=pays))
    return found


def _rewrite(r: RawRewrite) -> HotRewrite:
    declined = r.declined[0] if r.declined else None
    check = r.check
    call = next((c for c in r.changes or [] if c.kind == "call" and c.span and c.code), None)
    source = "\n".join(r.imports or []) + "\n\n\n" + r.source if r.source and r.imports else r.source or ""
    return HotRewrite(
        dialect=r.dialect or r.id or "", source=source,
        call=(call.span.first or 0, call.code or "") if call and call.span else None,
        matched=(check.verdict == "matched") if check else None, checked=(check.evaluations or 0) if check else 0,
        problem=of_raw(CheckFailure, check.mismatch, error=check.error) if check and (check.error or check.mismatch)
        else None,
        declined=(declined.construct or "", declined.span.first or 0 if declined.span else 0,
                  declined.reason or "") if declined else None,
        notes=tuple(Note(n.topic or "", n.line, n.code or "") for n in r.notes or []))
