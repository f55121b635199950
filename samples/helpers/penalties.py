"""Fitness building blocks shared by samples: array-API style, for NumPy and torch alike (pass ``xp``)."""

import math


def rastrigin(x, xp):
    return (x**2 - 10 * xp.cos(2 * math.pi * x) + 10).sum(1)


def box_violation(x, low, high, xp):
    """How far each individual lies outside the box [low, high], summed over genes."""
    return (xp.clip(low - x, 0, None) + xp.clip(x - high, 0, None)).sum(1)


def penalised_rastrigin(x, xp, weight=100.0):
    return rastrigin(x, xp) + weight * box_violation(x, -4.0, 4.0, xp)
