"""Judges corrected by people: prediction-powered inference for a mean.

A judge scores every item; people label a few. The judge's mean over the unlabelled items is
cheap and precise but biased by the judge's error; the labelled items measure that error. PPI
(Angelopoulos et al. 2023) adds the measured judge–human gap to the judge's figure; PPI++
(Angelopoulos, Duchi, Zrnic 2023) weighs the judge by λ chosen to minimise the variance, so a
poor judge can never make the interval wider than the human-only one by much (λ → 0).

    θ̂ = mean(human) + λ · (mean(judge on unlabelled) − mean(judge on labelled))
    Var = Var(human − λ·judge)/n + λ² · Var(judge on unlabelled)/N
    λ* = Cov(human, judge) / ((1 + n/N) · Var(judge))        (on the labelled items)

The unlabelled set is the items without a human label (independent of the labelled ones, as
the theory requires); items are treated as independent (clustered PPI is not built yet). The
interval takes Student t with n − 1 df rather than the normal: the variance is mostly the
labelled items' and λ is estimated from them (with the normal, 100 labels covered 93.1 % in
bench/bench_stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lvlmbench.stats._distributions import t_quantile
from lvlmbench.stats.estimate import Estimate, FloatArray, mean_interval

__all__ = ["PPI", "PPI_PLUS_PLUS", "PpiResult", "ppi_mean"]

PPI = "ppi"
PPI_PLUS_PLUS = "ppi++"


@dataclass(frozen=True)
class PpiResult:
    """The human-level figure by PPI beside the raw judge figure and the human-only one."""

    corrected: Estimate
    judge_only: Estimate
    """The judge's mean over every item: what the judge says, not what people would."""
    human_only: Estimate
    labels: int
    """Items with a human label (the n used)."""
    weight: float
    """λ: 1 for plain PPI, the power-tuned value for PPI++."""


def _array(values: Sequence[float], name: str) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a flat sequence of finite numbers")
    return array


def ppi_mean(
    human: Sequence[float],
    judge_labelled: Sequence[float],
    judge_unlabelled: Sequence[float],
    *,
    tuned: bool = True,
    confidence: float = 0.95,
) -> PpiResult:
    """PPI++ (``tuned``, the default) or plain PPI estimate of the human mean.

    ``human[i]`` and ``judge_labelled[i]`` are the same item's human and judge scores;
    ``judge_unlabelled`` are the judge's scores on the items no person labelled."""
    y, f = _array(human, "human"), _array(judge_labelled, "judge_labelled")
    f_u = _array(judge_unlabelled, "judge_unlabelled")
    if y.size != f.size:
        raise ValueError(f"expected a judge score per human label ({y.size}), got {f.size}")
    if y.size < 2 or f_u.size < 2:
        raise ValueError("PPI needs at least 2 labelled and 2 unlabelled items")
    n, big_n = y.size, f_u.size
    weight = 1.0
    if tuned:
        spread = float(np.var(f, ddof=1))
        covariance = float(np.cov(y, f, ddof=1)[0, 1])
        weight = covariance / ((1.0 + n / big_n) * spread) if spread > 0 else 0.0
    point = float(y.mean() + weight * (f_u.mean() - f.mean()))
    variance = (
        float(np.var(y - weight * f, ddof=1)) / n + weight**2 * float(np.var(f_u, ddof=1)) / big_n
    )
    se = math.sqrt(variance)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * se
    corrected = Estimate(
        point,
        point - half,
        point + half,
        n + big_n,
        n + big_n,
        PPI_PLUS_PLUS if tuned else PPI,
        "item",
        confidence,
        se,
    )
    judge_all = np.concatenate([f, f_u])
    return PpiResult(
        corrected,
        mean_interval(judge_all, confidence=confidence),
        mean_interval(y, confidence=confidence),
        n,
        weight,
    )
