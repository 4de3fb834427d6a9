"""Interval estimates quoted by simulate, evaluate and report."""

from __future__ import annotations

import math


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion.

    Shared wins count fractionally (a two-way tie is half a win), which the Wilson formula accepts
    as a proportion; it stays inside [0, 1] and behaves at 0% and 100%, unlike the normal interval.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
