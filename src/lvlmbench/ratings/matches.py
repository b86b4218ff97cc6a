"""Pairwise match records shared by the rating functions, and their validation.

A match is ``(player_a, player_b, outcome)`` with outcome 1 when ``player_a`` wins, 0 when
``player_b`` wins and 0.5 for a tie. Plain tuples are accepted everywhere; :class:`Match` only
names the fields. Validation lives here so that every rating function rejects the same bad input
with the same message instead of quietly rating it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["OUTCOMES", "Match", "validate_matches"]

OUTCOMES: frozenset[float] = frozenset({0.0, 0.5, 1.0})
"""The only outcomes a match may have: b wins, tie, a wins."""


class Match(NamedTuple):
    """One game between two players; ``outcome`` is 1 (a wins), 0 (b wins) or 0.5 (tie)."""

    player_a: str
    player_b: str
    outcome: float


def validate_matches(matches: Iterable[tuple[str, str, float]]) -> list[Match]:
    """The matches as a list, or ``ValueError`` naming the first problem.

    Rejected: no matches at all, an outcome outside {0, 0.5, 1} (a score such as 0.7 or NaN is a
    bug upstream, not a partial win), and a player matched against itself (it carries no
    information about relative strength and would distort win counts).
    """
    out: list[Match] = []
    for index, match in enumerate(matches):
        if len(match) != 3:
            raise ValueError(f"match {index} must be (player_a, player_b, outcome), got {match!r}")
        a, b, outcome = match
        try:
            value = float(outcome)
        except (TypeError, ValueError):
            raise ValueError(
                f"match {index} ({a!r} vs {b!r}): outcome must be 0, 0.5 or 1, got {outcome!r}"
            ) from None
        if math.isnan(value) or value not in OUTCOMES:
            raise ValueError(
                f"match {index} ({a!r} vs {b!r}): outcome must be 0, 0.5 or 1, got {outcome!r}"
            )
        if a == b:
            raise ValueError(f"match {index}: player {a!r} is matched against itself")
        out.append(Match(a, b, value))
    if not out:
        raise ValueError("no matches to rate: the match list is empty")
    return out


@dataclass(frozen=True)
class EncodedMatches:
    """Matches as integer arrays over a sorted player list (internal to the rating modules)."""

    players: list[str]
    a: npt.NDArray[np.intp]
    b: npt.NDArray[np.intp]
    outcome: npt.NDArray[np.float64]


def encode_matches(matches: Iterable[tuple[str, str, float]]) -> EncodedMatches:
    """Validate, then index players in sorted order so results are independent of input order."""
    valid = validate_matches(matches)
    players = sorted({m.player_a for m in valid} | {m.player_b for m in valid})
    index = {p: i for i, p in enumerate(players)}
    a = np.fromiter((index[m.player_a] for m in valid), dtype=np.intp, count=len(valid))
    b = np.fromiter((index[m.player_b] for m in valid), dtype=np.intp, count=len(valid))
    outcome = np.fromiter((m.outcome for m in valid), dtype=np.float64, count=len(valid))
    return EncodedMatches(players, a, b, outcome)
