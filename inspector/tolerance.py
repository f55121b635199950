"""When two outputs of a fitness function agree: the one rule of the cross-check of a run's variants
(``collect.crosscheck``) and of a rewrite checked against the code it rewrites (``rewrite.check``).

Below both (numpy only): collect runs it on the probe's outputs, the rewriter in inspector's own process."""

from __future__ import annotations

import numpy as np

RTOL = 1e-5  # the relative tolerance where the sample sets none (its TOLERANCE) and --rtol is not given


def close(expected: np.ndarray, got: np.ndarray, rtol: float = RTOL) -> np.ndarray:
    """Elementwise, whether ``got`` matches ``expected`` (float arrays of one shape): within the relative tolerance
    ``rtol``, or an absolute one of 1e-9 of the largest finite expected value; NaN equal to NaN, an infinity to the
    same infinity."""
    finite = np.abs(expected[np.isfinite(expected)])
    atol = 1e-9 * (finite.max() if finite.size else 1.0)
    return np.asarray(np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True))
