"""Judge diagnostics from pairwise verdicts collected in both presentation orders.

LLM judges are known to favour the first-shown answer, longer answers and answers from their own
model family. Because VisIT-Bench judges every pair in both orders, these biases can be measured
from the verdicts alone: a verdict that changes when the order is swapped is a position effect,
and with both orders present an unbiased judge picks position A exactly half the time.

Every function takes :class:`TwoOrderVerdict` records. Unparseable verdicts (``None``) are counted
as ``unscored`` and never scored, as elsewhere in lvlmbench.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from lvlmbench.ratings.agreement import Verdict
from lvlmbench.ratings.combine import MAJORITY, CombineRule, combine_winners
from lvlmbench.ratings.intervals import Interval, wilson_interval

__all__ = [
    "JudgeDiagnostics",
    "PositionConsistency",
    "Preference",
    "TwoOrderVerdict",
    "first_position_preference",
    "judge_diagnostics",
    "length_preference",
    "position_consistency",
    "self_preference",
]

_VERDICTS = ("A", "B", "tie", None)


@dataclass(frozen=True)
class TwoOrderVerdict:
    """One pair of answers judged twice, once in each presentation order.

    In order "ab" ``player_a``'s answer is shown as response A and ``player_b``'s as response B;
    in order "ba" they are swapped, so ``player_b`` is shown as A. ``verdict_ab`` and
    ``verdict_ba`` are the judge's verdicts in each order's *own* terms (``'A'``, ``'B'``,
    ``'tie'``, or ``None`` when the judge's output could not be parsed). ``length_a`` and
    ``length_b`` are the two answers' lengths in any consistent unit (the length baseline uses
    non-whitespace tokens). A player may not be named ``'tie'``.
    """

    player_a: str
    player_b: str
    length_a: float
    length_b: float
    verdict_ab: Verdict | None
    verdict_ba: Verdict | None

    def __post_init__(self) -> None:
        if self.player_a == self.player_b:
            raise ValueError(f"player {self.player_a!r} is judged against itself")
        if "tie" in (self.player_a, self.player_b):
            raise ValueError("a player may not be named 'tie': it is reserved for tie verdicts")
        for name in ("verdict_ab", "verdict_ba"):
            value = getattr(self, name)
            if value not in _VERDICTS:
                raise ValueError(f"{name} must be 'A', 'B', 'tie' or None, got {value!r}")
        if self.length_a < 0 or self.length_b < 0:
            raise ValueError(f"answer lengths must be >= 0, got {self.length_a}, {self.length_b}")

    @property
    def winner_ab(self) -> str | None:
        """Preferred player in order "ab": a player's name, ``'tie'``, or None if unparseable."""
        return _winner(self.verdict_ab, self.player_a, self.player_b)

    @property
    def winner_ba(self) -> str | None:
        """Preferred player in order "ba": a player's name, ``'tie'``, or None if unparseable."""
        return _winner(self.verdict_ba, self.player_b, self.player_a)

    def outcome(self, rule: CombineRule = MAJORITY) -> float | None:
        """The combined result for ``player_a`` under ``rule`` (:mod:`~lvlmbench.ratings.combine`):
        1 win, 0 loss, 0.5 tie; None if either verdict is unparseable, so the pair is unscored
        rather than guessed. By default VisIT-Bench's released rule: the side that wins more of
        the two orders wins (a win plus a tie is a win); ``"both"`` wants both orders."""
        return combine_winners(self.winner_ab, self.winner_ba, self.player_a, self.player_b, rule)


@dataclass(frozen=True)
class PositionConsistency:
    """How often the preferred player changes when the order is swapped.

    Over ``scored`` records (both verdicts parsed): ``consistent`` keep the same result,
    ``reversed`` pick opposite players, ``half_flips`` are a tie in one order only.
    """

    records: int
    unscored: int
    consistent: int
    reversed: int
    half_flips: int

    @property
    def scored(self) -> int:
        """Records with both verdicts parsed."""
        return self.records - self.unscored

    @property
    def flip_rate(self) -> float | None:
        """Share of scored records whose result changes with the order (reversals and half
        flips); None when nothing was scored."""
        return (self.reversed + self.half_flips) / self.scored if self.scored else None

    @property
    def reversal_rate(self) -> float | None:
        """Share of scored records where the two orders pick opposite players."""
        return self.reversed / self.scored if self.scored else None


@dataclass(frozen=True)
class Preference:
    """How often single verdicts favour one kind of answer (first shown, longer, own family).

    Counted per verdict (each record gives up to two). ``rate`` is ``favoured / (favoured +
    disfavoured)``: ties are reported but excluded, so 0.5 means no preference. ``skipped``
    counts verdicts the question does not apply to (equal lengths, no own-family player).
    """

    favoured: int
    disfavoured: int
    ties: int
    unscored: int
    skipped: int
    interval: Interval = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "interval", wilson_interval(self.favoured, self.decisive))

    @property
    def decisive(self) -> int:
        """Verdicts that picked a side."""
        return self.favoured + self.disfavoured

    @property
    def rate(self) -> float | None:
        """Favoured share of decisive verdicts; None when there are none."""
        return self.favoured / self.decisive if self.decisive else None


@dataclass(frozen=True)
class JudgeDiagnostics:
    """All diagnostics for one judge; ``self_preference`` is None without a judge family."""

    position: PositionConsistency
    first_position: Preference
    longer_answer: Preference
    self_preference: Preference | None


def position_consistency(records: Iterable[TwoOrderVerdict]) -> PositionConsistency:
    """Position-flip rate: does the preferred player change when the order is swapped?"""
    rows = _nonempty(records)
    unscored = consistent = reversed_ = half = 0
    for r in rows:
        ab, ba = r.winner_ab, r.winner_ba
        if ab is None or ba is None:
            unscored += 1
        elif ab == ba:
            consistent += 1
        elif "tie" in (ab, ba):
            half += 1
        else:
            reversed_ += 1
    return PositionConsistency(len(rows), unscored, consistent, reversed_, half)


def first_position_preference(records: Iterable[TwoOrderVerdict]) -> Preference:
    """Share of decisive verdicts that pick response A (whatever answer is shown first)."""
    counts = _Tally()
    for r in _nonempty(records):
        for verdict in (r.verdict_ab, r.verdict_ba):
            counts.add(verdict, favoured="A")
    return counts.result()


def length_preference(records: Iterable[TwoOrderVerdict]) -> Preference:
    """Share of decisive verdicts that pick the longer answer (equal lengths are skipped)."""
    counts = _Tally()
    for r in _nonempty(records):
        longer = r.player_a if r.length_a > r.length_b else r.player_b
        for winner in (r.winner_ab, r.winner_ba):
            if r.length_a == r.length_b:
                counts.skipped += 1
            else:
                counts.add(winner, favoured=longer)
    return counts.result()


def self_preference(
    records: Iterable[TwoOrderVerdict],
    judge_family: str,
    family_of: Mapping[str, str] | Callable[[str], str],
) -> Preference:
    """Share of decisive verdicts won by the judge's own family in own-vs-other matches.

    Only matches with exactly one player of ``judge_family`` count (others are ``skipped``).
    The rate mixes bias with real quality, so read it against another judge's (or people's)
    rate on the same records. ``family_of`` maps each player to its family; a player it does
    not know raises ``ValueError``.
    """
    lookup = _family_lookup(family_of)
    counts = _Tally()
    for r in _nonempty(records):
        own_a = lookup(r.player_a) == judge_family
        own_b = lookup(r.player_b) == judge_family
        for winner in (r.winner_ab, r.winner_ba):
            if own_a == own_b:
                counts.skipped += 1
            else:
                counts.add(winner, favoured=r.player_a if own_a else r.player_b)
    return counts.result()


def judge_diagnostics(
    records: Iterable[TwoOrderVerdict],
    *,
    judge_family: str | None = None,
    family_of: Mapping[str, str] | Callable[[str], str] | None = None,
) -> JudgeDiagnostics:
    """Every diagnostic at once; self-preference needs both ``judge_family`` and ``family_of``."""
    rows = _nonempty(records)
    if (judge_family is None) != (family_of is None):
        raise ValueError("self-preference needs both judge_family and family_of, or neither")
    own = None
    if judge_family is not None and family_of is not None:
        own = self_preference(rows, judge_family, family_of)
    return JudgeDiagnostics(
        position_consistency(rows), first_position_preference(rows), length_preference(rows), own
    )


@dataclass
class _Tally:
    """Mutable counts behind a :class:`Preference`."""

    favoured: int = 0
    disfavoured: int = 0
    ties: int = 0
    unscored: int = 0
    skipped: int = 0

    def add(self, choice: str | None, *, favoured: str) -> None:
        """Count one verdict: ``choice`` is what was picked, ``favoured`` the tested kind."""
        if choice is None:
            self.unscored += 1
        elif choice == "tie":
            self.ties += 1
        elif choice == favoured:
            self.favoured += 1
        else:
            self.disfavoured += 1

    def result(self) -> Preference:
        return Preference(self.favoured, self.disfavoured, self.ties, self.unscored, self.skipped)


def _winner(verdict: Verdict | None, shown_a: str, shown_b: str) -> str | None:
    if verdict is None or verdict == "tie":
        return verdict
    return shown_a if verdict == "A" else shown_b


def _nonempty(records: Iterable[TwoOrderVerdict]) -> list[TwoOrderVerdict]:
    rows = list(records)
    if not rows:
        raise ValueError("no verdict records to diagnose: the record list is empty")
    return rows


def _family_lookup(family_of: Mapping[str, str] | Callable[[str], str]) -> Callable[[str], str]:
    if not isinstance(family_of, Mapping):
        return family_of
    mapping = family_of

    def lookup(player: str) -> str:
        if player not in mapping:
            raise ValueError(f"unknown family for player {player!r}: add it to family_of")
        return mapping[player]

    return lookup
