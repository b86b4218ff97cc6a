"""How the two presentation orders of a pairwise judgment combine into one match result.

VisIT-Bench judges every pair twice (A/B and B/A) to cancel position bias. Its released
leaderboard (README, "More information about the leaderboard's judgment process") counts how
many of the two judgements each side won: the side that won more wins the match, otherwise it
is a tie. So a win plus a tie is a win, a win for each side is a tie, and two ties are a tie.
That is :data:`MAJORITY`, the default everywhere.

:data:`BOTH` is the stricter rule: a side wins only if it wins both orders; a win plus a tie is
a tie. It reads a judge that is unsure in one order as undecided, which is useful to check how
much a ranking rests on half-decided pairs, but it is not the published rule.

Either way an order with no verdict (unparseable, refused, failed or missing) leaves the match
unscored: it is never guessed from the other order.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["BOTH", "COMBINE_RULES", "MAJORITY", "CombineRule", "combine_winners"]

CombineRule = Literal["majority", "both"]
"""``"majority"`` (VisIT-Bench's released rule, the default) or ``"both"`` (wins both)."""
MAJORITY: CombineRule = "majority"
BOTH: CombineRule = "both"
COMBINE_RULES: tuple[CombineRule, ...] = get_args(CombineRule)


def combine_winners(
    first: str | None, second: str | None, player_a: str, player_b: str, rule: CombineRule
) -> float | None:
    """``player_a``'s match outcome (1 win, 0.5 tie, 0 loss) from the two orders' winners.

    ``first`` and ``second`` are each a player's name, ``"tie"``, or None when that order has
    no verdict (then the match is unscored: None). ``ValueError`` for an unknown rule or a
    winner that is neither player nor ``"tie"``.
    """
    if rule not in COMBINE_RULES:
        raise ValueError(f"combine rule must be one of {', '.join(COMBINE_RULES)}, got {rule!r}")
    if first is None or second is None:
        return None
    for winner in (first, second):
        if winner not in (player_a, player_b, "tie"):
            raise ValueError(f"winner {winner!r} is neither {player_a!r}, {player_b!r} nor 'tie'")
    a_wins = (first == player_a) + (second == player_a)
    b_wins = (first == player_b) + (second == player_b)
    if rule == BOTH:
        return 1.0 if a_wins == 2 else 0.0 if b_wins == 2 else 0.5
    return 1.0 if a_wins > b_wins else 0.0 if b_wins > a_wins else 0.5
