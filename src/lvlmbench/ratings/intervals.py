"""Confidence intervals for proportions."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Interval", "wilson_interval"]


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval."""

    low: float
    high: float


def wilson_interval(successes: float, n: float, z: float = 1.96) -> Interval:
    """Wilson score interval for ``successes`` out of ``n`` (95% with the default z).

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 and n; with no
    trials the interval is the whole range. ``successes`` may be fractional (a tie counted as
    half a win); the score interval depends only on the observed proportion and ``n``, which
    may be a weighted count too (matches weighing 1/K each: their items).
    """
    if n <= 0:
        return Interval(0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(max(0.0, centre - half), min(1.0, centre + half))
