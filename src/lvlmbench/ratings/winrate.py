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
"""

from __future__ import annotations

from collections.abc import Iterable
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

    wins: int
    losses: int
    ties: int
    rate: float
    """Wins (plus half the ties with ``ties="half"``) over all matches against the reference."""
    interval: Interval
    ties_rule: TieRule

    @property
    def matches(self) -> int:
        """Matches played against the reference."""
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
) -> dict[str, WinRate]:
    """Each model's win rate in its matches against ``reference`` (outcome 1: a wins).

    Matches not involving the reference are ignored; models that never met it are absent.
    Raises ``ValueError`` for empty or malformed matches, an unknown tie rule, or a reference
    that plays in none of the matches.
    """
    if ties not in ("separate", "half"):
        raise ValueError(f"ties must be 'separate' or 'half', got {ties!r}")
    valid = validate_matches(matches)
    records: dict[str, list[int]] = {}  # model -> [wins, losses, ties]
    seen_reference = False
    for a, b, outcome in valid:
        if reference not in (a, b):
            continue
        seen_reference = True
        model, score = (b, 1.0 - outcome) if a == reference else (a, outcome)
        record = records.setdefault(model, [0, 0, 0])
        record[0 if score == 1.0 else 1 if score == 0.0 else 2] += 1
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
) -> dict[str, dict[str, WinRate]]:
    """Win rates against ``reference`` per category (e.g. VisIT-Bench instruction family).

    ``matches`` are ``(a, b, outcome, category)``. Returns ``{category: {model: WinRate}}``; a
    category where the reference never plays is absent. ``ValueError`` as in
    :func:`win_rates_vs_reference`, judged over all categories together.
    """
    grouped: dict[str, list[tuple[str, str, float]]] = {}
    for index, match in enumerate(matches):
        if len(match) != 4:
            raise ValueError(
                f"match {index} must be (player_a, player_b, outcome, category), got {match!r}"
            )
        a, b, outcome, category = match
        grouped.setdefault(category, []).append((a, b, outcome))
    if not grouped:
        raise ValueError("no matches to rate: the match list is empty")
    everything = [m for group in grouped.values() for m in group]
    win_rates_vs_reference(everything, reference, ties=ties, z=z)  # validates everything once
    result: dict[str, dict[str, WinRate]] = {}
    for category in sorted(grouped):
        group = grouped[category]
        if any(reference in (a, b) for a, b, _ in group):
            result[category] = win_rates_vs_reference(group, reference, ties=ties, z=z)
    return result


def _rate(wins: int, losses: int, ties: int, rule: TieRule, z: float) -> WinRate:
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
