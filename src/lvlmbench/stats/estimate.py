"""One figure with its interval, and the three ways a mean over items gets one.

The unit is the item (epochs first average within it); items cluster where they share a source,
and the interval must account for it: items of one cluster are correlated, so n items carry less
information than n independent ones and an interval over items alone is too narrow.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lvlmbench.ratings import wilson_interval
from lvlmbench.stats._distributions import normal_quantile, t_quantile

__all__ = [
    "CLUSTERED_T",
    "CLUSTER_BOOTSTRAP",
    "WILSON",
    "Estimate",
    "NotEnoughClusters",
    "cluster_bootstrap",
    "cluster_index",
    "clustered_mean",
    "item_means",
    "mean_interval",
    "small_sample_scaled",
]

CLUSTERED_T = "clustered-t"
"""Analytic cluster-robust SE (CR1: G/(G-1) correction), Student t with G-1 df."""
CLUSTER_BOOTSTRAP = "cluster-bootstrap"
"""Percentile interval over resamples of whole clusters."""
WILSON = "wilson"
"""Wilson score interval: binary scores, one item per cluster."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


class NotEnoughClusters(ValueError):
    """An interval needs at least two clusters: with one, its spread is unknowable."""


@dataclass(frozen=True)
class Estimate:
    """A figure, its interval at ``confidence``, what it was computed over and how."""

    estimate: float
    low: float
    high: float
    n_items: int
    n_clusters: int
    method: str
    """CLUSTERED_T, CLUSTER_BOOTSTRAP, WILSON, or another module's method name."""
    cluster: str
    """What an item's cluster is ("item" when every item stands alone)."""
    confidence: float = 0.95
    std_error: float | None = None
    """The standard error where the method has one (None for percentile intervals)."""


def item_means(
    samples: Sequence[tuple[Hashable, float]],
) -> dict[Hashable, float]:
    """Each item's mean score over its samples (epochs), in first-seen order: the unit every
    estimator here takes, so K epochs of one item weigh as one item."""
    totals: dict[Hashable, list[float]] = {}
    for item, score in samples:
        totals.setdefault(item, []).append(float(score))
    return {item: sum(values) / len(values) for item, values in totals.items()}


def cluster_index(clusters: Sequence[Hashable] | None, n: int) -> IntArray:
    """Each item's cluster as 0..G-1 (every item its own cluster when ``clusters`` is None)."""
    if clusters is None:
        return np.arange(n, dtype=np.intp)
    if len(clusters) != n:
        raise ValueError(f"expected one cluster per item ({n}), got {len(clusters)}")
    codes: dict[Hashable, int] = {}
    return np.array([codes.setdefault(c, len(codes)) for c in clusters], dtype=np.intp)


def _checked(scores: Sequence[float] | FloatArray, confidence: float) -> FloatArray:
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("expected a non-empty sequence of per-item scores")
    if not np.all(np.isfinite(values)):
        raise ValueError("per-item scores must be finite numbers")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return values


def clustered_mean(
    scores: Sequence[float] | FloatArray,
    clusters: Sequence[Hashable] | None,
    *,
    cluster: str = "item",
    confidence: float = 0.95,
) -> Estimate:
    """The mean of per-item scores with a cluster-robust interval.

    The variance is the CR1 sandwich of an intercept-only regression (what statsmodels' OLS
    with ``cov_type="cluster"`` gives): ``G/(G-1) · Σ_g (Σ_{i∈g} (y_i - ȳ))² / N²``, and the
    interval uses Student's t with G-1 degrees of freedom, as the sandwich is estimated from G
    cluster sums, not N items. With one item per cluster this is the ordinary t interval.
    """
    values = _checked(scores, confidence)
    codes = cluster_index(clusters, values.size)
    groups = int(codes.max()) + 1
    if groups < 2:
        raise NotEnoughClusters(f"an interval needs at least 2 clusters ({cluster}), got 1")
    mean = float(values.mean())
    sums = np.bincount(codes, weights=values - mean, minlength=groups)
    variance = groups / (groups - 1) * float(np.sum(sums**2)) / values.size**2
    se = math.sqrt(variance)
    half = t_quantile(0.5 + confidence / 2.0, groups - 1) * se
    return Estimate(
        mean, mean - half, mean + half, values.size, groups, CLUSTERED_T, cluster, confidence, se
    )


def mean_interval(
    scores: Sequence[float] | FloatArray,
    clusters: Sequence[Hashable] | None = None,
    *,
    cluster: str = "item",
    confidence: float = 0.95,
) -> Estimate:
    """The mean of per-item scores with the interval that fits them: Wilson where every item
    is its own cluster and every score is 0 or 1, the clustered t interval otherwise."""
    values = _checked(scores, confidence)
    codes = cluster_index(clusters, values.size)
    groups = int(codes.max()) + 1
    binary = bool(np.all((values == 0.0) | (values == 1.0)))
    if groups == values.size and binary:
        z = normal_quantile(0.5 + confidence / 2.0)
        band = wilson_interval(float(values.sum()), values.size, z)
        mean = float(values.mean())
        return Estimate(mean, band.low, band.high, values.size, groups, WILSON, cluster, confidence)
    return clustered_mean(values, clusters, cluster=cluster, confidence=confidence)


def _resampled_items(codes: IntArray, rng: np.random.Generator, groups: int) -> IntArray:
    members = [np.flatnonzero(codes == g) for g in range(groups)]
    drawn = rng.integers(0, groups, size=groups)
    return np.concatenate([members[g] for g in drawn])


def small_sample_scaled(point: float, resampled: FloatArray, groups: int) -> FloatArray:
    """Resampled values with their deviations from ``point`` scaled by √(G/(G−1)).

    A bootstrap over G clusters spreads a mean by (G−1)/G of its CR1 variance (the bootstrap
    variance divides by G where the unbiased one divides by G−1), so with 30 clusters its
    intervals run short and its tests reject too often; the CR1 factor mends that."""
    return np.asarray(point + (resampled - point) * math.sqrt(groups / (groups - 1)))


def cluster_bootstrap(
    statistic: Callable[[IntArray], float],
    clusters: Sequence[Hashable] | None,
    n_items: int,
    *,
    cluster: str = "item",
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[Estimate, FloatArray]:
    """A statistic that is not a mean, with a percentile interval over cluster resamples.

    ``statistic`` takes the indices of the items in a sample (repeats allowed) and returns the
    figure; each resample draws G clusters with replacement and keeps all of each drawn
    cluster's items together; deviations are scaled by :func:`small_sample_scaled`. Returns
    the estimate and the resampled values (for p-values and rank intervals). The same
    ``seed`` gives the same interval."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    codes = cluster_index(clusters, n_items)
    groups = int(codes.max()) + 1 if n_items else 0
    if groups < 2:
        raise NotEnoughClusters(f"a bootstrap needs at least 2 clusters ({cluster}), got {groups}")
    rng = np.random.default_rng(seed)
    point = float(statistic(np.arange(n_items, dtype=np.intp)))
    values = np.array(
        [statistic(_resampled_items(codes, rng, groups)) for _ in range(resamples)],
        dtype=np.float64,
    )
    values = small_sample_scaled(point, values, groups)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    estimate = Estimate(
        point, float(low), float(high), n_items, groups, CLUSTER_BOOTSTRAP, cluster, confidence
    )
    return estimate, values
