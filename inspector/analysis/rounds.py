"""Ratios from the alternating rounds: two timings taken in turn, each round's ratio side by side."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Optional


def side_by_side(numerator: Mapping[int, float],
                 denominator: Mapping[int, float]) -> Optional[tuple[float, list[float], list[int]]]:
    """(median of ``numerator[r] / denominator[r]`` over the rounds both have, [lowest, highest], those rounds) from
    two {round: seconds}; None when they share no round."""
    rounds = sorted(numerator.keys() & denominator.keys())
    if not rounds:
        return None
    ratios = [numerator[r] / denominator[r] for r in rounds]
    return statistics.median(ratios), [min(ratios), max(ratios)], rounds
