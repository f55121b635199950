"""Cross-check every variant's output: a compiled variant against its own eager function, an eager variant
against its family's reference (the first of python, numpy, torch that ran); elementwise, any output shape with
one row per individual ((n,), or (n, k) for k objectives)."""

from pathlib import Path
from typing import Optional

import numpy as np

from inspector.raw import RawRecord, RawTrial, RawVariant, Status
from inspector.tolerance import RTOL, close


def cross_check(record: RawRecord, outputs_dir: Path, rtol: Optional[float] = None) -> RawRecord:
    """The RawRecord with ``reference`` (the "" family's, or the first family's), each variant's
    ``checked_against``, ``matches_reference`` and ``mismatch``, and each fix tried's ``matches_variant`` and
    ``mismatch`` (raw facts of the run: the outputs in ``outputs_dir`` are not kept)."""
    assert record.sample is not None and record.variants is not None, "a sample's record, as collect makes it"
    rtol = rtol or record.sample.tolerance or RTOL
    outputs = {v.id: np.load(path) for v in record.variants
               if v.status == Status.OK and (path := outputs_dir / f"{v.id}.npy").exists()}
    references: dict[str, Optional[str]] = {}  # {family: the id of its reference}
    for kind in ("python", "numpy", "torch"):
        for v in record.variants:
            if v.kind == kind and not v.compiled and v.id in outputs:
                references.setdefault(v.given("family", ""), v.id)
    variants = [_checked(v, outputs, references, record.sample.population, rtol) for v in record.variants]
    checked = record.but(reference=references.get("", next(iter(references.values()), None)), variants=variants)
    if record.trials is None:
        return checked
    return checked.but(trials=[_tried(t, outputs, outputs_dir, rtol) for t in record.trials])


def _checked(v: RawVariant, outputs: dict[Optional[str], np.ndarray], references: dict[str, Optional[str]],
             n: Optional[int], rtol: float) -> RawVariant:
    """The variant with what its output says against its reference's (its own eager function's, if compiled)."""
    if v.id not in outputs:
        return v.but(checked_against=None, matches_reference=None)
    got, expected_rows = outputs[v.id], v.measured_population or n
    if got.ndim not in (1, 2) or got.shape[0] != expected_rows:
        return v.but(checked_against=None, matches_reference=False, mismatch=(
            f"returned shape {tuple(got.shape)}, expected ({expected_rows},) or ({expected_rows}, k): one value, or "
            "one row of k objectives, per individual"))
    own = v.function[len("fitness_"):] if v.compiled and v.function else None
    against = own if own in outputs else references.get(v.given("family", ""))
    if against is None or against == v.id:
        return v.but(checked_against=None, matches_reference=True if against else None)
    matches, mismatch = compare(outputs[against], got, rtol)
    return v.but(checked_against=against, matches_reference=matches, mismatch=mismatch)


def _tried(t: RawTrial, outputs: dict[Optional[str], np.ndarray], outputs_dir: Path, rtol: float) -> RawTrial:
    """A fix tried, with its output against its variant's: it computes what its variant computed."""
    path = outputs_dir / f"{t.id}.npy"
    if t.status == Status.OK and path.exists() and t.variant in outputs:
        matches, mismatch = compare(outputs[t.variant], np.load(path), rtol)
        return t.but(matches_variant=matches, mismatch=mismatch)
    return t


def compare(expected: np.ndarray, got: np.ndarray, rtol: float = RTOL) -> tuple[bool, Optional[str]]:
    """(True, None) when ``got`` matches ``expected`` (``tolerance.close``, relative tolerance ``rtol``) over the
    rows both have, else (False, what differs)."""
    m = min(len(expected), len(got))
    expected, got = expected[:m], got[:m]
    if expected.shape != got.shape:
        return False, f"returned shape {tuple(got.shape)} where the reference has {tuple(expected.shape)}"
    try:
        expected = expected.astype(np.float64)
        got = got.astype(np.float64)
    except (TypeError, ValueError) as e:
        return False, f"not comparable as numbers ({e})"
    agree = close(expected, got, rtol)
    if agree.all():
        return True, None
    bad = np.argwhere(~agree)
    first = "; ".join(f"#{_where(i)}: expected {float(expected[tuple(i)])!r}, got {float(got[tuple(i)])!r}"
                      for i in bad[:3])
    rows = len({int(i[0]) for i in bad})
    return False, f"{rows} of {len(got)} individuals differ (first: {first})"


def _where(index: np.ndarray) -> str:
    """An individual's number, with its objective's where there are several: 5, or 5[1]."""
    return f"{index[0]}" if len(index) == 1 else f"{index[0]}[{index[1]}]"
