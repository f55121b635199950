"""The facts of each family's headline, from its timed variants and inspector's rewrites: the fastest, the fastest
eager and compiled variants, a rewrite faster than all of them, the breaks and recompiles, and a sweep's crossover
(the words are ``inspector.render.views``')."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Optional

from inspector.analysis.rewrites import beats
from inspector.model import Crossover, Headline, Rewritten, SampleVariant, Status


def headlines(variants: Sequence[SampleVariant], rewrites: Sequence[Rewritten],
              crossovers: Mapping[str, Crossover]) -> tuple[Headline, ...]:
    """One Headline per family that timed a variant, in the order the families appear (``crossovers``: a sweep's,
    by family)."""
    out = []
    for family in dict.fromkeys(v.family for v in variants):
        timed = [v for v in variants if v.family == family and v.timing and v.status == Status.OK and not v.failed]
        fastest = _fastest(timed)
        if fastest:
            out.append(replace(_headline(family, fastest, timed, rewrites), crossover=crossovers.get(family)))
    return tuple(out)


def _time(v: SampleVariant) -> float:
    """A timed variant's time for the whole population."""
    return v.timing.per_population_s if v.timing else float("inf")


def _fastest(variants: Sequence[SampleVariant]) -> Optional[SampleVariant]:
    return min(variants, key=_time, default=None)


def _headline(family: str, fastest: SampleVariant, timed: Sequence[SampleVariant],
              rewrites: Sequence[Rewritten]) -> Headline:
    """The facts of one family's headline: its fastest eager variant is NumPy's or torch's, else Python's."""
    eager = _fastest([v for v in timed if not v.compiled and v.kind != "python"]) or _fastest(
        [v for v in timed if not v.compiled])
    compiled = _fastest([v for v in timed if v.compiled])
    t = _time(fastest)
    beaten = [(r, x) for r in rewrites if r.family == family and (x := beats(r))]
    best = max(beaten, key=lambda rx: rx[1].vs_fastest or 0) if beaten else None  # the fastest of them
    return Headline(
        family, fastest.id, t, fastest.speedups.vs_numpy, eager.id if eager else None,
        _time(eager) if eager else None, _time(eager) / t if eager else None, compiled.id if compiled else None,
        _time(compiled) if compiled else None, (best[0].id, best[1].id) if best else None,
        len({(b.file, b.line) for v in timed if v.compiled for b in v.code.breaks}),
        sum(v.code.recompilation.count for v in timed if v.compiled and v.code.recompilation), None)
