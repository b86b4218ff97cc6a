"""Simulated pairwise battles with a known length bias, to check style-controlled ratings.

Each model has a true strength (Elo scale) and a typical answer length; the simulated judge's
log-odds for ``a`` over ``b`` are the strength difference plus ``length_bias`` times the
normalised length difference ``(len_a − len_b) / (len_a + len_b)``. Raw Bradley–Terry then
credits a verbose model with the judge's taste; the style-controlled fit should not.

Ties are drawn so that the expected score of ``a`` is exactly the judge's win probability
(``P(tie)`` grows as the two sides get closer, a win takes ``p − P(tie)/2``), which is the
half-win model both fits assume.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["StyleBattles", "draw_matches", "simulate_style_battles"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class StyleBattles:
    """Simulated matches, each side's style counts (columns as ``STYLE_FEATURES``) and the
    truth they were drawn from."""

    matches: list[tuple[str, str, float]]
    features_a: IntArray
    features_b: IntArray
    true_ratings: dict[str, float]
    """The strengths given, shifted to mean ``1000`` (the fits' unanchored convention)."""
    length_bias: float
    """Judge log-odds per unit of ``(len_a − len_b) / (len_a + len_b)``."""


def simulate_style_battles(
    strengths: Mapping[str, float],
    lengths: Mapping[str, float],
    *,
    matches: int,
    length_bias: float,
    ties: float = 0.1,
    markdown: Mapping[str, tuple[float, float, float]] | None = None,
    seed: int = 0,
) -> StyleBattles:
    """``matches`` battles between random pairs of the models in ``strengths`` (Elo scale).

    ``lengths`` is each model's median answer length in tokens (answers vary log-normally,
    σ = 0.3, around it); ``markdown`` gives each model's mean (headers, list items, bold)
    counts per answer (Poisson; default 1 of each for every model), which the judge ignores.
    About ``ties`` of the matches are ties.
    """
    names = sorted(strengths)
    if len(names) < 2 or set(lengths) != set(names):
        raise ValueError("need two or more models, each with a strength and a length")
    rng = np.random.default_rng(seed)
    theta = np.array([strengths[m] for m in names]) * math.log(10.0) / 400.0
    a = rng.integers(0, len(names), matches)
    b = (a + rng.integers(1, len(names), matches)) % len(names)
    median = np.array([lengths[m] for m in names])
    length_a = np.maximum(1, np.rint(median[a] * rng.lognormal(0.0, 0.3, matches)))
    length_b = np.maximum(1, np.rint(median[b] * rng.lognormal(0.0, 0.3, matches)))
    rates = np.array([(markdown or {}).get(m, (1.0, 1.0, 1.0)) for m in names])
    features_a = np.column_stack([length_a, rng.poisson(rates[a])]).astype(np.int64)
    features_b = np.column_stack([length_b, rng.poisson(rates[b])]).astype(np.int64)
    diff = (length_a - length_b) / (length_a + length_b)
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b] + length_bias * diff)))
    played = draw_matches(rng, names, a, b, p, ties)
    centre = float(np.mean([strengths[m] for m in names]))
    return StyleBattles(
        matches=played,
        features_a=features_a,
        features_b=features_b,
        true_ratings={m: strengths[m] - centre + 1000.0 for m in names},
        length_bias=length_bias,
    )


def draw_matches(
    rng: np.random.Generator,
    names: list[str],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    p: npt.NDArray[np.float64],
    ties: float,
) -> list[tuple[str, str, float]]:
    """Match results of ``names[a]`` vs ``names[b]`` where ``a`` wins with probability ``p``,
    with about a ``ties`` share of ties, drawn where the players are closest.

    P(tie) = c · 2 min(p, 1 − p) and P(win) = p − P(tie) / 2 keep the expected score at ``p``.
    """
    closeness = 2.0 * np.minimum(p, 1.0 - p)
    tie = min(1.0, ties / float(closeness.mean())) * closeness
    u = rng.random(len(p))
    outcome = np.where(u < p - tie / 2, 1.0, np.where(u < p + tie / 2, 0.5, 0.0))
    return [
        (names[i], names[j], o)
        for i, j, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True)
    ]
