"""Fixes inspector can try without editing the user's code: which apply (``choose``, from a record's analysis), and
what each measured (``trial``, from the record's ``trials``).

A fix is tried in the probe that ran the variants (``inspector.probe.trials``), on the variant that needs it most,
and timed side by side with it in the alternating rounds; a fix is advice only where it measured a gain.
"""

import re
from dataclasses import replace

from inspector.analysis import rounds
from inspector.model import LineStatus, Status, Trial, Vectorized

# the kinds of fix: the population column-major where strided loads kept lines scalar, the tiling heuristic off
# (the heuristic that turns SIMD off for them), a Dynamo flag that removes a graph break, and dynamic=False where a
# size change recompiled (breaks --population-sizes)
KINDS = ("layout", "tiling", "flag", "static")
TILING_OFF = "cpp.enable_tiling_heuristics=False"
HEURISTIC = ("non-contiguous", "small-inner-range")  # the branches of Inductor's tiling that the heuristic took
SCALAR = (Vectorized.NONE, Vectorized.SOME)  # a line with C++ units left scalar
GAIN = 1.05  # a trial at least this much faster (and faster in every round) gained; anything else did not


def choose(record, kinds, timed=True):
    """The trials (probe SPECs) of the ``kinds`` of fix worth making for ``record``'s compiled CPU variants: the
    layout and the tiling heuristic on the variant with the most time at stake in strided kernels, a flag on each
    variant with a break it removes, dynamic=False on each variant a size change recompiled (its ``sizes``); config
    fixes first. ``timed``: rounds follow (else each is timed on its own)."""
    from inspector.analysis import analyze  # the package imports this module

    found, raws = {}, {r.id: r for r in record.variants}
    for v in analyze(record).variants:
        if not (v.ok_compiled and v.device == "cpu" and not v.preview) or v.kind == "python":
            continue
        strided = {k for e in strided_lines(v.code) for k in e.kernels}
        stake = sum(k.cost.time_s or 0 for k in v.code.kernels if k.id in strided and k.cost) if strided else 0
        outside = (v.code.break_cost.outside_s or 0) if v.code.break_cost else 0
        fixes = [("tiling", "tiling-off", {"config": [TILING_OFF]}, stake)] if strided_lines(v.code, HEURISTIC) else []
        fixes += [("flag", _slug(flag), {"config": [flag]}, outside)
                  for flag in dict.fromkeys(b.flag for b in v.code.breaks if b.flag)]
        sizes = raws[v.id].sizes or []
        fixes += [("static", "dynamic-false", {"compile_options": {"dynamic": False}, "sizes": [
            n.population for n in sizes]}, 0)] if any("size mismatch" in (r.reason or "") for n in sizes
                                                      for r in n.recompiles) else []
        fixes += [("layout", "column-major", {"layout": "column-major"}, stake)] if strided and len(
            record.sample.shape or []) == 2 else []
        for kind, fix, spec, at_stake in fixes:
            key = (v.id, fix) if kind in ("flag", "static") else fix
            if kind in kinds and (key not in found or at_stake > found[key][0]):
                found[key] = (at_stake, dict(spec, id=f"{v.id}~{fix}", variant=v.id, fix=fix, time=not timed))
    return sorted((spec for _, spec in found.values()), key=lambda s: "layout" in s)


def strided_lines(v, branches=None):
    """The line verdicts of ``v`` (a CompiledCode) not (all) vectorized whose C++ loop nests load strided elements: the lines the
    layout and the tiling heuristic are about. ``branches``: only nests whose recorded tiling decision took one of
    these branches (a nest with no decision recorded counts by its strided loads alone)."""
    nests = {f"{k.id}#{n.index}": n for k in v.kernels for n in k.loop_nests}

    def about(n):
        decided = n.decisions and n.decisions.tiling
        return bool(n.strided_loads) and (not branches or not decided or any(
            t.branch in branches for t in n.decisions.tiling))
    return [e for e in v.lines if e.vectorized in SCALAR and any(
        about(nests[n]) for n in e.nests if n in nests)]


def _slug(flag):
    """capture_scalar_outputs for dynamo.capture_scalar_outputs=True."""
    return re.sub(r"=.*$", "", flag).split(".")[-1]


def trial(raw, timing, before, after_timing, after, sizes=()):
    """The Trial of one raw trial: ``before`` the CompiledCode of the variant it changed (``timing`` its Timing),
    ``after`` the trial's own (its kernels, lines and breaks analysed as a variant's; ``after_timing``); ``sizes``:
    the variant's raw calls at further sizes, which a trial with ``sizes`` is compared on (steady call at the last
    size; recompiles over all)."""
    side = rounds.side_by_side(timing.rounds_s, after_timing.rounds_s) if timing and after_timing else None
    speedup, spread = (side[0], side[1]) if side else (
        timing.median_s / after_timing.median_s if timing and after_timing else None, None)
    at = [(b, a) for b, a in zip(sizes, raw.sizes or []) if b.population == a.population]
    if raw.sizes:
        speedup = at[-1][0].steady_s / at[-1][1].steady_s if at and at[-1][1].steady_s else None
    scalar = {(e.file, e.line) for e in before.lines if e.vectorized in SCALAR}
    serial = {(e.file, e.line) for e in before.lines if e.status == LineStatus.SERIAL}
    vectorized = sorted(fl for fl in {(e.file, e.line) for e in after.lines if e.vectorized == Vectorized.ALL} if fl in scalar)
    parallel = sorted(fl for fl in {(e.file, e.line) for e in after.lines if e.status == LineStatus.PARALLEL} if fl in serial)
    left = {(b.file, b.line, b.cause) for b in after.breaks}
    ok = raw.status == "ok" and raw.matches_variant is not False
    gain = bool(ok and speedup and speedup >= GAIN and (spread is None or spread[0] > 1))
    fix = raw.fix or raw.id.split("~")[-1]
    t = Trial(id=raw.id, variant=raw.variant, fix=fix, what=_what(raw), status=raw.status or "error",
              error=raw.error, matches=raw.matches_variant, mismatch=raw.mismatch,
              speedup=speedup, spread=spread, rounds=len(side[2]) if side else 0,
              median_before_s=timing.median_s if timing else None,
              median_after_s=after_timing.median_s if after_timing else None, vectorized_now=vectorized,
              parallel_now=parallel, breaks_before=len(before.breaks), breaks_after=len(after.breaks),
              gone=sorted(b.line for b in before.breaks if (b.file, b.line, b.cause) not in left), gain=gain,
              alone=bool(raw.alone), flag=(raw.config or [None])[0],
              sizes=[(b.population, b.steady_s, a.steady_s, len(b.recompiles), len(a.recompiles))
                     for b, a in at])
    return replace(t, text=_text(t, LABELS.get(fix) or _what(raw)))


LABELS = {"column-major": "column-major", "tiling-off": "the tiling heuristic off", "dynamic-false": "dynamic=False"}


def _text(t, label):
    """"tried: column-major → 3.1x faster (2.9x to 3.3x in 3 alternating rounds), lines 23-32 now vectorized"."""
    if t.status != Status.OK:
        return f"tried: {label} → failed: {t.error or t.status}"
    if t.matches is False:
        return f"tried: {label} → its output differs from the variant's ({t.mismatch}): not advice"
    if t.speedup is None:
        return f"tried: {label} → not timed"
    how = (f" ({_between(*t.spread)} in {t.rounds} alternating round{'s' if t.rounds > 1 else ''})" if t.spread
           else f" (one steady call each at {t.sizes[-1][0]:,}, one after the other; recompiles "
                f"{sum(s[3] for s in t.sizes)} → {sum(s[4] for s in t.sizes)} over the sizes)" if t.sizes
           else " (timed one after the other, not side by side)")
    said = [f"{_x(t.speedup)}{how}" if t.gain else f"no gain: {_x(t.speedup)}{how}"]
    said += [f"line{'s' if len(t.vectorized_now) > 1 else ''} {spans(t.vectorized_now)} now vectorized"] \
        if t.vectorized_now else []
    said += [f"line{'s' if len(t.parallel_now) > 1 else ''} {spans(t.parallel_now)} now parallel"] \
        if t.parallel_now else []
    said += [f"graph breaks {t.breaks_before} → {t.breaks_after}"] if t.breaks_before != t.breaks_after else []
    return f"tried: {label} → " + ", ".join(said)


def _between(low, high):
    """1.9x to 2.3x faster, 1.1x to 1.4x slower, or 1.2x slower to 1.1x faster."""
    if low >= 1 or high < 1:
        a, b = sorted((low, high) if low >= 1 else (1 / low, 1 / high))
        return f"{a:.3g}x to {b:.3g}x {'faster' if low >= 1 else 'slower'}"
    return f"{_x(low)} to {_x(high)}"


def _x(ratio):
    """3.1x faster, or 1.2x slower."""
    return f"{ratio:.3g}x faster" if ratio >= 1 else f"{1 / ratio:.3g}x slower"


def _what(raw):
    """The fix in words, as a user would apply it."""
    if raw.layout == "column-major":
        return "the population column-major (np.asfortranarray(pop); a torch tensor's pop.t().contiguous().t())"
    options = ", ".join(f"{k}={v!r}" for k, v in (raw.compile_options or {}).items())
    return ", ".join(f"--config {c}" for c in raw.config or []) or (
        f"torch.compile(fn, {options})" if options else raw.id)


def spans(lines):
    """"23-32, 40" for the (file, line) pairs ``lines`` (the lines' numbers; runs of consecutive ones as ranges)."""
    numbers = sorted({n for _, n in lines})
    out, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            out.append(f"{start}" if start == n else f"{start}-{n}")
            start = None
    return ", ".join(out)
