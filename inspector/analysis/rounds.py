"""Ratios from the alternating rounds: two timings taken in turn, each round's ratio side by side."""

import statistics


def side_by_side(numerator, denominator):
    """(median of ``numerator[r] / denominator[r]`` over the rounds both have, [lowest, highest], those rounds) from
    two {round: seconds}; None when they share no round."""
    rounds = sorted(numerator.keys() & denominator.keys())
    if not rounds:
        return None
    ratios = [numerator[r] / denominator[r] for r in rounds]
    return statistics.median(ratios), [min(ratios), max(ratios)], rounds
