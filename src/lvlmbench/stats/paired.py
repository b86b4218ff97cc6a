"""Is A better than B on the same items? Paired differences, cluster-aware.

Only items both models answered are compared; the others are counted, never silently dropped.
A pair stays a pair in every resample: the bootstrap draws clusters, and each drawn cluster
brings both models' scores on each of its items, so the correlation between the two models'
answers (the reason a paired test is far more powerful) is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from lvlmbench.stats._distributions import binomial_two_sided, chi2_1_sf, t_sf
from lvlmbench.stats.estimate import (
    Estimate,
    FloatArray,
    IntArray,
    NotEnoughClusters,
    cluster_bootstrap,
    cluster_index,
    clustered_mean,
    small_sample_scaled,
)

__all__ = [
    "MCNEMAR_CHI2",
    "MCNEMAR_EXACT",
    "MCNEMAR_EXACT_BELOW",
    "PAIRED_BOOTSTRAP",
    "PAIRED_CLUSTERED_T",
    "McNemar",
    "PairedComparison",
    "bootstrap_p_value",
    "mcnemar",
    "paired_bootstrap",
    "paired_difference",
]

PAIRED_BOOTSTRAP = "paired-cluster-bootstrap"
PAIRED_CLUSTERED_T = "paired-clustered-t"
MCNEMAR_EXACT = "mcnemar-exact"
MCNEMAR_CHI2 = "mcnemar-chi2"
MCNEMAR_EXACT_BELOW = 25
"""Discordant pairs under which McNemar's test is the exact binomial one (statsmodels' advice)."""


@dataclass(frozen=True)
class McNemar:
    a_only: int
    """Pairs A got right and B wrong."""
    b_only: int
    p_value: float
    method: str


@dataclass(frozen=True)
class PairedComparison:
    """A − B on the items both answered, with its interval and a two-sided p-value."""

    difference: Estimate
    p_value: float
    test: str
    """How the p-value was found (PAIRED_BOOTSTRAP, PAIRED_CLUSTERED_T, MCNEMAR_EXACT or
    MCNEMAR_CHI2)."""
    only_a: int
    """Items only A answered: excluded from the comparison."""
    only_b: int


def mcnemar(a_only: int, b_only: int) -> McNemar:
    """McNemar's test on the discordant pairs: exact binomial below MCNEMAR_EXACT_BELOW of
    them, else chi-square with continuity correction (as statsmodels' ``mcnemar``)."""
    discordant = a_only + b_only
    if discordant < MCNEMAR_EXACT_BELOW:
        return McNemar(a_only, b_only, binomial_two_sided(a_only, discordant), MCNEMAR_EXACT)
    statistic = (abs(a_only - b_only) - 1.0) ** 2 / discordant
    return McNemar(a_only, b_only, chi2_1_sf(statistic), MCNEMAR_CHI2)


def bootstrap_p_value(point: float, resampled: FloatArray, null: float = 0.0) -> float:
    """Two-sided p-value of ``point`` against ``null``: the share of resamples, centred on the
    estimate, at least as far from it as the estimate is from ``null`` (+1 in both counts, so a
    finite number of resamples never claims p = 0)."""
    distance = abs(point - null)
    beyond = int(np.sum(np.abs(resampled - point) >= distance))
    return (1 + beyond) / (1 + resampled.size)


def _common(
    a: Mapping[Hashable, float], b: Mapping[Hashable, float]
) -> tuple[list[Hashable], int, int]:
    shared = [item for item in a if item in b]
    return shared, len(a) - len(shared), sum(1 for item in b if item not in a)


def _clustered_t_test(
    diff: FloatArray, labels: list[Hashable] | None, cluster: str, confidence: float
) -> tuple[Estimate, float]:
    """The mean difference's clustered t interval and its two-sided p-value (G − 1 df)."""
    interval = clustered_mean(diff, labels, cluster=cluster, confidence=confidence)
    if interval.std_error:
        t = abs(interval.estimate / interval.std_error)
        p_value = min(1.0, 2.0 * t_sf(t, interval.n_clusters - 1))
    else:  # zero spread: the difference is the same on every item
        p_value = 1.0 if interval.estimate == 0 else 0.0
    return replace(interval, method=PAIRED_CLUSTERED_T), p_value


def paired_difference(
    a: Mapping[Hashable, float],
    b: Mapping[Hashable, float],
    clusters: Mapping[Hashable, Hashable] | None = None,
    *,
    cluster: str = "item",
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    test: Literal["bootstrap", "t"] = "bootstrap",
) -> PairedComparison:
    """Mean of A − B over the items both answered (per-item scores, epochs already averaged).

    Unclustered binary scores get McNemar's p-value and the paired t interval; otherwise the
    interval and p-value come from a paired cluster bootstrap of the mean difference, or with
    ``test="t"`` from the analytic clustered t on the per-item differences (deterministic;
    in bench/bench_stats.py both keep their false-positive rate)."""
    shared, only_a, only_b = _common(a, b)
    if not shared:
        raise ValueError("the two models have no item in common")
    diff = np.array([a[i] - b[i] for i in shared], dtype=np.float64)
    unclustered = [i for i in shared if clusters is not None and i not in clusters]
    if unclustered:
        raise ValueError(f"item {unclustered[0]!r} has no cluster ({cluster})")
    labels = None if clusters is None else [clusters[i] for i in shared]
    codes = cluster_index(labels, len(shared))
    groups = int(codes.max()) + 1
    binary = all(a[i] in (0.0, 1.0) and b[i] in (0.0, 1.0) for i in shared)
    if groups == len(shared) and binary:
        interval = clustered_mean(diff, None, cluster=cluster, confidence=confidence)
        counted = mcnemar(int(np.sum(diff > 0)), int(np.sum(diff < 0)))
        return PairedComparison(interval, counted.p_value, counted.method, only_a, only_b)
    if groups < 2:
        raise NotEnoughClusters(f"a paired comparison needs at least 2 clusters ({cluster})")
    if test == "t":
        marked, p_value = _clustered_t_test(diff, labels, cluster, confidence)
        return PairedComparison(marked, p_value, PAIRED_CLUSTERED_T, only_a, only_b)
    sums = np.bincount(codes, weights=diff, minlength=groups)
    sizes = np.bincount(codes, minlength=groups).astype(np.float64)
    draws = np.random.default_rng(seed).multinomial(
        groups, np.full(groups, 1.0 / groups), resamples
    )
    point = float(diff.mean())
    resampled = small_sample_scaled(point, (draws @ sums) / (draws @ sizes), groups)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(resampled, [tail, 1.0 - tail])
    estimate = Estimate(
        point, float(low), float(high), len(shared), groups, PAIRED_BOOTSTRAP, cluster, confidence
    )
    return PairedComparison(
        estimate, bootstrap_p_value(point, resampled), PAIRED_BOOTSTRAP, only_a, only_b
    )


def paired_bootstrap(
    statistic: Callable[[IntArray], float],
    clusters: list[Hashable] | None,
    n_pairs: int,
    *,
    cluster: str = "item",
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    null: float = 0.0,
) -> PairedComparison:
    """Any paired difference that is not a mean (judge-score medians, win-rate gaps,
    Bradley–Terry rating differences): ``statistic`` gets the indices of the pairs (items or
    matches, aligned with ``clusters``) in a resample and returns A − B on them. The p-value
    tests the difference against ``null`` (0.5 for a win rate against its opponent, say)."""
    estimate, resampled = cluster_bootstrap(
        statistic,
        clusters,
        n_pairs,
        cluster=cluster,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    )
    marked = replace(estimate, method=PAIRED_BOOTSTRAP)
    p_value = bootstrap_p_value(estimate.estimate, resampled, null)
    return PairedComparison(marked, p_value, PAIRED_BOOTSTRAP, 0, 0)
