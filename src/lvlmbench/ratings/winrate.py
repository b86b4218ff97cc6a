"""Win rate against a reference player: VisIT-Bench's absolute metric.

Elo and Bradley–Terry are relative: adding or removing a model shifts everyone. The win rate
against a fixed reference (the human-verified reference answer playing as a model) does not, and
it is what the paper headlines ("the best model wins only ~27% against the reference").

Ties: the paper's number is the share of matches the model *wins*, so by default
(``ties="separate"``) a tie is not a win: ``rate = wins / matches`` and ``tie_rate`` is reported
beside it, which keeps "how often it is at least as good" recoverable as ``rate + tie_rate``.
``ties="half"`` instead scores a tie as half a win (``rate = (wins + ties / 2) / matches``), the
convention Elo and Bradley–Terry use. Either way the Wilson interval is over all matches against
the reference.

Weighted matches (``weights``): a match counts its weight in the wins, losses, ties and the
interval's n. One of K epochs' verdicts on an item weighs 1/K, so an item counts once and the
Wilson interval is over items, not items × epochs (an item's K verdicts share its picture and
question; they are not K independent matches).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from lvlmbench.ratings.intervals import Interval, wilson_interval
from lvlmbench.ratings.matches import validate_matches

__all__ = ["TieRule", "WinRate", "category_win_rates", "win_rates_vs_reference"]

TieRule = Literal["separate", "half"]
"""How ties enter the win rate: not a win and reported apart, or half a win."""


@dataclass(frozen=True)
class WinRate:
    """One model's record against the reference and its win rate with a Wilson interval."""

    wins: float
    losses: float
    ties: float
    """Matches won, lost and tied (whole numbers unless the matches were weighted)."""
    rate: float
    """Wins (plus half the ties with ``ties="half"``) over all matches against the reference."""
    interval: Interval
    ties_rule: TieRule

    @property
    def matches(self) -> float:
        """Matches played against the reference (their weight, when weighted: items)."""
        return self.wins + self.losses + self.ties

    @property
    def tie_rate(self) -> float:
        """Share of matches against the reference that were ties."""
        return self.ties / self.matches


def win_rates_vs_reference(
    matches: Iterable[tuple[str, str, float]],
    reference: str,
    *,
    ties: TieRule = "separate",
    z: float = 1.96,
    weights: Sequence[float] | None = None,
) -> dict[str, WinRate]:
    """Each model's win rate in its matches against ``reference`` (outcome 1: a wins).

    Matches not involving the reference are ignored; models that never met it are absent.
    ``weights``: one per match (see the module's docstring; None: 1 each).
    Raises ``ValueError`` for empty or malformed matches or weights, an unknown tie rule, or a
    reference that plays in none of the matches.
    """
    if ties not in ("separate", "half"):
        raise ValueError(f"ties must be 'separate' or 'half', got {ties!r}")
    valid = validate_matches(matches)
    counted = _weights(weights, len(valid))
    records: dict[str, list[float]] = {}  # model -> [wins, losses, ties]
    seen_reference = False
    for (a, b, outcome), weight in zip(valid, counted, strict=True):
        if reference not in (a, b):
            continue
        seen_reference = True
        model, score = (b, 1.0 - outcome) if a == reference else (a, outcome)
        record = records.setdefault(model, [0, 0, 0])
        record[0 if score == 1.0 else 1 if score == 0.0 else 2] += weight
    if not seen_reference:
        raise ValueError(f"unknown reference {reference!r}: it plays in none of the matches")
    return {
        model: _rate(won, lost, tied, ties, z)
        for model, (won, lost, tied) in sorted(records.items())
    }


def category_win_rates(
    matches: Iterable[tuple[str, str, float, str]],
    reference: str,
    *,
    ties: TieRule = "separate",
    z: float = 1.96,
    weights: Sequence[float] | None = None,
) -> dict[str, dict[str, WinRate]]:
    """Win rates against ``reference`` per category (e.g. VisIT-Bench instruction family).

    ``matches`` are ``(a, b, outcome, category)``, ``weights`` one per match as in
    :func:`win_rates_vs_reference`. Returns ``{category: {model: WinRate}}``; a category where
    the reference never plays is absent. ``ValueError`` as in :func:`win_rates_vs_reference`,
    judged over all categories together.
    """
    grouped: dict[str, list[tuple[str, str, float]]] = {}
    grouped_weights: dict[str, list[float]] = {}
    listed = list(matches)
    counted = _weights(weights, len(listed))
    for index, (match, weight) in enumerate(zip(listed, counted, strict=True)):
        if len(match) != 4:
            raise ValueError(
                f"match {index} must be (player_a, player_b, outcome, category), got {match!r}"
            )
        a, b, outcome, category = match
        grouped.setdefault(category, []).append((a, b, outcome))
        grouped_weights.setdefault(category, []).append(weight)
    if not grouped:
        raise ValueError("no matches to rate: the match list is empty")
    everything = [m for group in grouped.values() for m in group]
    win_rates_vs_reference(everything, reference, ties=ties, z=z)  # validates everything once
    result: dict[str, dict[str, WinRate]] = {}
    for category in sorted(grouped):
        group = grouped[category]
        if any(reference in (a, b) for a, b, _ in group):
            result[category] = win_rates_vs_reference(
                group, reference, ties=ties, z=z, weights=grouped_weights[category]
            )
    return result


def _weights(weights: Sequence[float] | None, n: int) -> Sequence[float]:
    """Each match's weight: 1 (an int, so unweighted counts stay whole numbers) when none are
    given; ``ValueError`` unless there is one within (0, 1] per match."""
    if weights is None:
        return [1] * n
    if len(weights) != n or not all(0.0 < w <= 1.0 for w in weights):
        raise ValueError(f"expected {n} match weights within (0, 1], got {len(weights)}")
    return weights


def _rate(wins: float, losses: float, ties: float, rule: TieRule, z: float) -> WinRate:
    # Weighted counts (sums of 1/K) read as what they are: 3, not 2.9999999999999996.
    wins, losses, ties = round(wins, 9), round(losses, 9), round(ties, 9)
    total = wins + losses + ties
    successes = wins + ties / 2 if rule == "half" else float(wins)
    return WinRate(
        wins=wins,
        losses=losses,
        ties=ties,
        rate=successes / total,
        interval=wilson_interval(successes, total, z),
        ties_rule=rule,
    )
