"""What the API hands the probe for one rewrite: the rewriter's result as the record keeps it (a ``RawRewrite``)
and the ``RewriteTrial`` commands that run it beside the variant it replaces (eager, compiled on the CPU, under
numba's ``@njit``). The rewriter runs here, in inspector's process; the probe runs the code."""

from __future__ import annotations

from inspector.probe.messages import RewriteTrial
from inspector.raw import RawDeclined, RawRewrite
from inspector.rewrite.breaks import rewrite_breaks
from inspector.rewrite.check import SAMPLE
from inspector.rewrite.codec import to_json
from inspector.rewrite.model import Declined, Dialect, Rewrite
from inspector.rewrite.program import Program
from inspector.rewrite.vectorize import vectorize

COMPILED = "-compiled-cpu"


def vectorized(program: Program, variant: str, function: str, dialect: Dialect, rows: int, timed: bool,
               numba: bool, rtol: float | None = None, cache: str | None = None
               ) -> tuple[RawRewrite, list[RewriteTrial]]:
    """A per-individual variant's function over the population (``<variant>-rewritten-<dialect>``), checked within
    ``rtol`` (None: the sample's) on a SAMPLE of its first ``rows`` individuals (the rows the variant ran on) and
    those of them that take a branch the sample did not (``inspector.rewrite.check``), run eager and compiled (and
    its NumPy rewrite under numba, and the function as it stands under numba, where ``numba``: ``cache``, a folder
    for numba's on-disk cache of the rewrite); ``timed``: rounds follow."""
    rid = f"{variant}-rewritten-{dialect.value}"
    written = vectorize(program, function, dialect)
    if isinstance(written, Declined):
        return _declined(rid, variant, function, "vectorized", dialect, (written,)), []
    raw = _raw(rid, variant, written, ())
    trials = [_trial(rid, rid, variant, raw, timed, check_rows=rows, sample=SAMPLE, rtol=rtol),
              _trial(f"{rid}{COMPILED}", rid, variant, raw, timed, compiled=True)]
    if numba and dialect is Dialect.NUMPY:
        trials += [_trial(f"{rid}-numba", rid, variant, raw, timed, numba=True, cache=cache),
                   _trial(f"{variant}-numba", rid, variant, None, timed, numba=True, fix="as-written", cache=cache)]
    return raw, trials


def breaks(program: Program, variant: str, function: str, dialect: Dialect, timed: bool, rtol: float | None = None
           ) -> tuple[RawRewrite, list[RewriteTrial]]:
    """A compiled NumPy or torch variant (``<base>-compiled-cpu``) with its breaks rewritten (``<base>-rewritten``),
    checked on the whole population and single rows within ``rtol`` (None: the sample's), run eager beside ``<base>``
    and compiled beside the variant."""
    base = variant.removesuffix(COMPILED)
    rid = f"{base}-rewritten"
    found = rewrite_breaks(program, function, dialect)
    if found.rewrite is None:
        return _declined(rid, variant, function, "breaks", dialect, found.declined), []
    raw = _raw(rid, variant, found.rewrite, found.declined)
    return raw, [_trial(rid, rid, base, raw, timed, check_rows=0, rtol=rtol),
                 _trial(f"{rid}{COMPILED}", rid, variant, raw, timed, compiled=True)]


def _raw(rid: str, variant: str, rewrite: Rewrite, declined: tuple[Declined, ...]) -> RawRewrite:
    return RawRewrite.from_json(dict(to_json(rewrite), id=rid, variant=variant, declined=to_json(declined)))


def _declined(rid: str, variant: str, function: str, kind: str, dialect: Dialect,
              declined: tuple[Declined, ...]) -> RawRewrite:
    return RawRewrite(id=rid, variant=variant, target=function, kind=kind, dialect=dialect.value,
                      declined=[RawDeclined.from_json(to_json(d)) for d in declined])


def _trial(tid: str, rid: str, variant: str, code: RawRewrite | None, timed: bool, *, compiled: bool = False,
           numba: bool = False, check_rows: int | None = None, sample: int | None = None, rtol: float | None = None,
           fix: str = "", cache: str | None = None) -> RewriteTrial:
    given = {"id": tid, "variant": variant, "fix": fix or tid.removeprefix(f"{variant}-"), "rewrite": rid,
             "code": code.to_json() if code else None, "compiled": compiled, "numba": numba, "check_rows": check_rows,
             "sample": sample, "rtol": rtol, "cache": cache, "time": not timed}
    return RewriteTrial.from_json({k: v for k, v in given.items() if v is not None and v is not False})
