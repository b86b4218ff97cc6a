"""Many comparisons at once: adjusted p-values, and rank intervals for a leaderboard.

A table that tests models × capabilities × levels makes dozens of comparisons; at α = 0.05
each, some "significant" differences are noise. Holm's step-down adjustment (the default)
keeps the chance of any false claim in the family at α; Benjamini–Hochberg keeps the expected
share of false claims among the claims at α (more power, weaker promise). A leaderboard's order
is uncertain too: each model's rank interval is the range of ranks it holds in the central
95 % of cluster-bootstrap resamples, and models whose intervals overlap are tied.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lvlmbench.stats.estimate import FloatArray, NotEnoughClusters, cluster_index

__all__ = [
    "ADJUSTMENTS",
    "Adjustment",
    "RankInterval",
    "adjust_p_values",
    "benjamini_hochberg",
    "holm",
    "rank_intervals",
]

Adjustment = Literal["holm", "bh", "none"]
ADJUSTMENTS: tuple[Adjustment, ...] = ("holm", "bh", "none")


def _checked(p_values: Sequence[float]) -> FloatArray:
    values = np.asarray(p_values, dtype=np.float64)
    if values.ndim != 1 or np.any(~np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise ValueError("p-values must be a flat sequence of numbers in [0, 1]")
    return values


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order: the k-th smallest (k from 0)
    is multiplied by m - k, then made non-decreasing along that order and capped at 1."""
    values = _checked(p_values)
    order = np.argsort(values, kind="stable")
    m = values.size
    stepped = np.maximum.accumulate(values[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input's order: the k-th smallest
    (k from 1) is multiplied by m / k, then made non-increasing from the largest down."""
    values = _checked(p_values)
    order = np.argsort(values, kind="stable")
    m = values.size
    scaled = values[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()


def adjust_p_values(p_values: Sequence[float], method: Adjustment = "holm") -> list[float]:
    """``p_values`` adjusted for their number by ``method`` (say which beside the figures)."""
    if method == "holm":
        return holm(p_values)
    if method == "bh":
        return benjamini_hochberg(p_values)
    if method == "none":
        return [float(v) for v in _checked(p_values)]
    raise ValueError(f"unknown adjustment {method!r}: expected one of {', '.join(ADJUSTMENTS)}")


@dataclass(frozen=True)
class RankInterval:
    """A model's rank (1 = best) on the observed data and the ranks it holds in the central
    ``confidence`` share of resamples; ``tied_with`` are the models whose intervals overlap."""

    model: str
    rank: int
    low: int
    high: int
    tied_with: tuple[str, ...]


def _ranks(means: FloatArray) -> FloatArray:
    """Rank of each column in each row: 1 + how many models score strictly higher."""
    higher = np.sum(means[:, None, :] > means[:, :, None], axis=2)
    return np.asarray(1.0 + higher, dtype=np.float64)


def rank_intervals(
    models: Sequence[str],
    scores: Sequence[Sequence[float]] | FloatArray,
    clusters: Sequence[Hashable] | None = None,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[RankInterval]:
    """Rank intervals of models scored on the same items (``scores[m][i]``: model m's per-item
    score on item i), from resamples of whole clusters; best first."""
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != len(models) or matrix.shape[1] == 0:
        raise ValueError("expected one row of per-item scores per model, all over the same items")
    codes = cluster_index(clusters, matrix.shape[1])
    groups = int(codes.max()) + 1
    if groups < 2:
        raise NotEnoughClusters("rank intervals need at least 2 clusters")
    sums = np.stack([np.bincount(codes, weights=row, minlength=groups) for row in matrix])
    sizes = np.bincount(codes, minlength=groups).astype(np.float64)
    draws = np.random.default_rng(seed).multinomial(
        groups, np.full(groups, 1.0 / groups), resamples
    )
    means = (draws @ sums.T) / (draws @ sizes)[:, None]
    ranks = _ranks(means)
    tail = (1.0 - confidence) / 2.0
    low = np.floor(np.quantile(ranks, tail, axis=0, method="lower")).astype(int)
    high = np.ceil(np.quantile(ranks, 1.0 - tail, axis=0, method="higher")).astype(int)
    observed = _ranks(matrix.mean(axis=1)[None, :])[0].astype(int)
    result = [
        RankInterval(
            name,
            int(observed[m]),
            int(low[m]),
            int(high[m]),
            tuple(
                other
                for o, other in enumerate(models)
                if o != m and low[o] <= high[m] and low[m] <= high[o]
            ),
        )
        for m, name in enumerate(models)
    ]
    return sorted(result, key=lambda r: (r.rank, r.model))
