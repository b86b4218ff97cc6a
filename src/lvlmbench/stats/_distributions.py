"""The few distribution functions the estimators need, without scipy (not a core dependency).

Student's t comes from the regularized incomplete beta function (continued fraction, modified
Lentz); its quantile is found by bisection, which is exact to far below any printed digit.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

__all__ = ["binomial_two_sided", "chi2_1_sf", "normal_quantile", "t_quantile", "t_sf"]

_STANDARD_NORMAL = NormalDist()


def normal_quantile(p: float) -> float:
    return _STANDARD_NORMAL.inv_cdf(p)


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (cached: tables ask
    for the same few quantiles thousands of times)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_sf(high, df) > 1.0 - p:
        high *= 2.0
    while high - low > 1e-12 * high:
        middle = (low + high) / 2.0
        if t_sf(middle, df) > 1.0 - p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def chi2_1_sf(x: float) -> float:
    """P(X > x) for a chi-square with one degree of freedom."""
    return math.erfc(math.sqrt(max(x, 0.0) / 2.0))


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips (doubling the smaller
    tail, as McNemar's exact test does), capped at 1."""
    if n == 0:
        return 1.0
    smaller = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(smaller + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)
