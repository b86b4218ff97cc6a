"""Online Elo ratings over a sequence of pairwise matches (VisIT-Bench's relative metric).

Online Elo depends on the order matches are played in: early matches move ratings from a flat
start and later ones refine them. Two figures are offered, and :class:`OnlineElo` keeps them
apart with a label each:

- **in the order fought**: the matches replayed once, in the order the battles happened (a vote
  file's rows, as Chatbot Arena's ``compute_elo`` replays its battles file): the live
  leaderboard's number, comparable with the peers';
- **the mean over shuffled orders**: replayed in ``shuffles`` seeded random orders and averaged,
  which removes most of the arbitrariness of an order that means nothing (a batch of judgments)
  while staying reproducible. It is a different number, not a better estimate of the first.

For order-free ratings with intervals use :func:`lvlmbench.ratings.bradley_terry`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from lvlmbench.ratings.matches import encode_matches

__all__ = [
    "ELO_SHUFFLES",
    "FoughtMatch",
    "OnlineElo",
    "OnlineEloJSON",
    "elo_ratings",
    "fought_order",
    "in_fought_order",
    "online_elo",
]

ELO_SHUFFLES = 100
"""Seeded random orders the shuffled mean averages over by default."""


@dataclass(frozen=True)
class FoughtMatch:
    """A match with what places it in the order the battles were fought."""

    sequence: int | None
    """Its battle's place in the order fought (the earliest of its rows'), None: unknown."""
    item: int
    """Its item's place in the benchmark (the order a judge run asks in)."""
    match: tuple[str, str, float]
    """First player, second, outcome for the first."""
    weight: float = 1.0
    """Its share of its item's weight: 1/K for one of K epochs' verdicts on the pair."""


def in_fought_order(matches: list[FoughtMatch]) -> list[FoughtMatch]:
    """The matches sorted as :func:`fought_order` plays them."""
    return sorted(matches, key=lambda m: (m.sequence is None, m.sequence or 0, m.item, m.match[:2]))


def fought_order(matches: list[FoughtMatch]) -> tuple[list[tuple[str, str, float]], str]:
    """The matches in the order their battles were fought, and words saying what that order
    is: by ``sequence`` where recorded, else (after those) in benchmark item order."""
    unknown = sum(m.sequence is None for m in matches)
    ordered = in_fought_order(matches)
    if unknown == 0:
        order = "the order fought"
    elif unknown == len(matches):
        order = "benchmark item order (no battle order recorded)"
    else:
        order = f"the order fought, then item order for {unknown} without one"
    return [m.match for m in ordered], order


class OnlineEloJSON(TypedDict):
    """:meth:`OnlineElo.as_dict`: both figures with their labels, as ``--json`` shows them."""

    in_order: dict[str, float]
    in_order_label: str
    order: str
    shuffled_mean: dict[str, float]
    shuffled_label: str
    shuffles: int
    seed: int


@dataclass(frozen=True)
class OnlineElo:
    """Online Elo two ways, each with the words that say which it is."""

    in_order: dict[str, float]
    """The matches replayed once, in ``order``."""
    order: str
    """What that order is ("the order fought", "benchmark item order", ...)."""
    shuffled: dict[str, float]
    """The mean over ``shuffles`` seeded random orders of the same matches."""
    shuffles: int
    seed: int

    @property
    def in_order_label(self) -> str:
        """The heading of :attr:`in_order` ("online Elo, in the order fought")."""
        return f"online Elo, in {self.order}"

    @property
    def shuffled_label(self) -> str:
        """The heading of :attr:`shuffled` ("online Elo, mean of 100 shuffled orders")."""
        return f"online Elo, mean of {self.shuffles} shuffled orders"

    def as_dict(self) -> OnlineEloJSON:
        """Both figures with their labels, JSON-ready."""
        return {
            "in_order": self.in_order,
            "in_order_label": self.in_order_label,
            "order": self.order,
            "shuffled_mean": self.shuffled,
            "shuffled_label": self.shuffled_label,
            "shuffles": self.shuffles,
            "seed": self.seed,
        }


def online_elo(
    fought: Iterable[tuple[str, str, float]],
    *,
    order: str,
    shuffle_from: Iterable[tuple[str, str, float]] | None = None,
    shuffles: int = ELO_SHUFFLES,
    seed: int = 0,
    weights: Sequence[float] | None = None,
    shuffle_weights: Sequence[float] | None = None,
) -> OnlineElo:
    """Online Elo (k 4, base 10, scale 400, from 1000: Chatbot Arena's ``compute_elo``) over
    ``fought`` replayed in the given order (described by ``order``), and the mean over
    ``shuffles`` seeded random orders. The shuffles start from ``shuffle_from`` (the same
    matches in a canonical order, so that the mean depends only on the matches) when given,
    else from ``fought``. ``weights`` and ``shuffle_weights``: each match's weight in those
    two lists (see :func:`elo_ratings`; None: 1 each)."""
    if shuffles < 1:
        raise ValueError(f"shuffles must be >= 1, got {shuffles}")
    matches = list(fought)
    base = matches if shuffle_from is None else list(shuffle_from)
    if sorted(base) != sorted(matches):
        raise ValueError("shuffle_from must hold the same matches as fought")
    base_weights = weights if shuffle_from is None else shuffle_weights
    return OnlineElo(
        in_order=elo_ratings(matches, weights=weights),
        order=order,
        shuffled=elo_ratings(base, shuffles=shuffles, seed=seed, weights=base_weights),
        shuffles=shuffles,
        seed=seed,
    )


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
    weights: Sequence[float] | None = None,
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
    ``weights`` (one per match, in (0, 1]) scale each match's step: one of K epochs' verdicts
    on an item moves the ratings by ``k / K``, so the item moves them as one match would.

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
    steps = _steps(k, weights, len(a))
    if shuffles == 0:
        final = _play(a, b, outcome, first, steps, base, scale)
    else:
        final = _shuffled_mean((a, b, outcome, steps), first, base, scale, shuffles, seed)
    initial.update(zip(encoded.players, final, strict=True))
    return dict(sorted(initial.items()))


def _shuffled_mean(
    matches: tuple[list[int], list[int], list[float], list[float]],
    first: list[float],
    base: float,
    scale: float,
    shuffles: int,
    seed: int,
) -> list[float]:
    """The ratings after ``matches`` (first players, second players, outcomes, steps) played
    in ``shuffles`` seeded random orders, averaged."""
    a, b, outcome, steps = matches
    rng = np.random.default_rng(seed)
    total = [0.0] * len(first)
    for _ in range(shuffles):
        order = rng.permutation(len(a)).tolist()
        ratings = _play(
            [a[i] for i in order],
            [b[i] for i in order],
            [outcome[i] for i in order],
            first,
            [steps[i] for i in order],
            base,
            scale,
        )
        total = [t + r for t, r in zip(total, ratings, strict=True)]
    return [t / shuffles for t in total]


def _steps(k: float, weights: Sequence[float] | None, n: int) -> list[float]:
    """Each match's step: ``k``, times its weight when weights are given."""
    if weights is None:
        return [k] * n
    if len(weights) != n or not all(0.0 < w <= 1.0 for w in weights):
        raise ValueError(f"expected {n} match weights within (0, 1], got {len(weights)}")
    return [k * w for w in weights]


def _play(
    a: list[int],
    b: list[int],
    outcome: list[float],
    first: list[float],
    steps: list[float],
    base: float,
    scale: float,
) -> list[float]:
    """One sequential pass; a plain loop because each update depends on the previous one."""
    ratings = list(first)
    for i, j, s, k in zip(a, b, outcome, steps, strict=True):
        ri, rj = ratings[i], ratings[j]
        expected = 1.0 / (1.0 + base ** ((rj - ri) / scale))
        delta = k * (s - expected)
        ratings[i] = ri + delta
        ratings[j] = rj - delta
    return ratings
