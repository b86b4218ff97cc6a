"""Online Elo ratings over a sequence of pairwise matches (VisIT-Bench's relative metric).

Online Elo depends on the order matches are played in: early matches move ratings from a flat
start and later ones refine them. That order is meaningful for a live leaderboard (matches in the
order they were judged) but arbitrary for a batch of judgments, so ``shuffles`` replays the
matches in several seeded random orders and averages the results, which removes most of that
arbitrariness while staying reproducible. For order-free ratings with intervals use
:func:`lvlmbench.ratings.bradley_terry`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from lvlmbench.ratings.matches import encode_matches

__all__ = ["elo_ratings"]


def elo_ratings(
    matches: Iterable[tuple[str, str, float]],
    *,
    k: float = 4.0,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
    shuffles: int = 0,
    seed: int = 0,
    start: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Elo rating of every player after playing ``matches`` one by one.

    Each match ``(a, b, outcome)`` (outcome 1: a wins, 0: b wins, 0.5: tie) moves the ratings by
    ``k * (outcome - expected)``, where ``expected = 1 / (1 + base ** ((r_b - r_a) / scale))``;
    every player starts at ``init``, or at its rating in ``start`` (so a dynamic leaderboard can
    continue from the current ratings when a new model's matches arrive; players in ``start``
    who play no match keep their rating). The small default ``k`` (4, as in the VisIT-Bench and
    Chatbot Arena code) suits many matches per player and keeps the result stable.

    With ``shuffles == 0`` the matches are played in the given order. With ``shuffles = n > 0``
    they are played in ``n`` random orders drawn from ``seed`` and the ratings are averaged.

    Raises ``ValueError`` for empty matches, an outcome not in {0, 0.5, 1}, a self-match, a
    non-positive ``k``/``base``/``scale`` or a negative ``shuffles``.
    """
    if k <= 0 or scale <= 0 or base <= 1:
        raise ValueError(
            f"need k > 0, scale > 0 and base > 1; got k={k}, scale={scale}, base={base}"
        )
    if shuffles < 0:
        raise ValueError(f"shuffles must be >= 0, got {shuffles}")
    encoded = encode_matches(matches)
    initial = dict(start or {})
    initial.update({p: initial.get(p, init) for p in encoded.players})
    first = [initial[p] for p in encoded.players]
    a = encoded.a.tolist()
    b = encoded.b.tolist()
    outcome = encoded.outcome.tolist()
    if shuffles == 0:
        final = _play(a, b, outcome, first, k, base, scale)
    else:
        rng = np.random.default_rng(seed)
        total = [0.0] * len(first)
        for _ in range(shuffles):
            order = rng.permutation(len(a)).tolist()
            ratings = _play(
                [a[i] for i in order],
                [b[i] for i in order],
                [outcome[i] for i in order],
                first,
                k,
                base,
                scale,
            )
            total = [t + r for t, r in zip(total, ratings, strict=True)]
        final = [t / shuffles for t in total]
    initial.update(zip(encoded.players, final, strict=True))
    return dict(sorted(initial.items()))


def _play(
    a: list[int],
    b: list[int],
    outcome: list[float],
    first: list[float],
    k: float,
    base: float,
    scale: float,
) -> list[float]:
    """One sequential pass; a plain loop because each update depends on the previous one."""
    ratings = list(first)
    for i, j, s in zip(a, b, outcome, strict=True):
        ri, rj = ratings[i], ratings[j]
        expected = 1.0 / (1.0 + base ** ((rj - ri) / scale))
        delta = k * (s - expected)
        ratings[i] = ri + delta
        ratings[j] = rj - delta
    return ratings
