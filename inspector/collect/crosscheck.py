"""Cross-check every variant's output against the reference: the first of python, numpy, torch that ran."""

import numpy as np

RTOL = 1e-5


def cross_check(record, outputs_dir):
    """Set ``reference`` on the record and ``matches_reference``/``mismatch`` on each variant (raw facts of the
    run: the outputs themselves are not kept)."""
    outputs = {}
    for v in record["variants"]:
        path = outputs_dir / f"{v['id']}.npy"
        if v["status"] == "ok" and path.exists():
            outputs[v["id"]] = np.load(path)
    n = record["sample"]["population"]
    reference = next((v for kind in ("python", "numpy", "torch") for v in record["variants"]
                      if v["kind"] == kind and not v["compiled"] and v["id"] in outputs), None)
    record["reference"] = reference["id"] if reference else None
    for v in record["variants"]:
        if v["id"] not in outputs:
            v["matches_reference"] = None
            continue
        got = outputs[v["id"]]
        expected_len = v.get("measured_population") or n
        if got.shape != (expected_len,):
            v["matches_reference"] = False
            v["mismatch"] = f"returned shape {tuple(got.shape)}, expected ({expected_len},): one value per individual"
            continue
        if reference is None or v["id"] == reference["id"]:
            v["matches_reference"] = True if reference else None
            continue
        ref = outputs[reference["id"]]
        m = min(len(ref), len(got))
        v["matches_reference"], v["mismatch"] = compare(ref[:m], got[:m])


def compare(expected, got):
    """(True, None) when ``got`` matches ``expected`` (rtol 1e-5, inf/nan aware), else (False, what differs)."""
    expected = expected.astype(np.float64)
    got = got.astype(np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    atol = 1e-9 * (finite.max() if finite.size else 1.0)
    close = np.isclose(got, expected, rtol=RTOL, atol=atol, equal_nan=True)
    if close.all():
        return True, None
    bad = np.flatnonzero(~close)
    first = "; ".join(f"#{i}: expected {float(expected[i])!r}, got {float(got[i])!r}" for i in bad[:3])
    return False, f"{len(bad)} of {len(got)} individuals differ (first: {first})"
