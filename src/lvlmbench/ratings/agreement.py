"""How well a judge agrees with people: per-item agreement, Cohen's kappa, Kendall's tau.

VisIT-Bench validates a judge on pairs that five people voted on, split by how unanimous they
were (5/5, 4/5, 3/5): a good judge should match the majority most often where people agree most.
The paper counts a judge's tie as a coin flip; that hides how often the judge abstains, so both
that number and the rate over non-tie verdicts are reported. An unparseable verdict (``None``) is
never scored either way; it is counted.

Cohen's kappa corrects raw agreement for the agreement expected by chance from each side's label
frequencies, and Kendall's tau-b compares two system-level orderings (the paper's check that a
judge ranks models as people do).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

__all__ = [
    "AgreementLevel",
    "AgreementReport",
    "Verdict",
    "cohen_kappa",
    "judge_human_agreement",
    "kendall_tau",
]

Verdict = Literal["A", "B", "tie"]
"""A pairwise verdict: response A better, response B better, or a tie."""


@dataclass(frozen=True)
class AgreementLevel:
    """Judge-vs-majority agreement over the items at one human agreement level.

    ``pairs`` counts items at this level; ``unscored`` of them had an unparseable judge verdict
    and ``judge_ties`` a tie verdict. ``coin_flip_agree`` counts agreements when each judge tie
    is settled by a seeded coin flip (the paper's rule); ``excluded_agree`` counts agreements
    among the non-tie verdicts only.
    """

    level: str
    pairs: int
    unscored: int
    judge_ties: int
    coin_flip_agree: int
    excluded_agree: int

    @property
    def scored(self) -> int:
        """Items with a parseable judge verdict."""
        return self.pairs - self.unscored

    @property
    def coin_flip_rate(self) -> float | None:
        """Agreement with ties as coin flips, over scored items; None when there are none."""
        return self.coin_flip_agree / self.scored if self.scored else None

    @property
    def excluded_rate(self) -> float | None:
        """Agreement over decisive (non-tie) verdicts; None when there are none."""
        decisive = self.scored - self.judge_ties
        return self.excluded_agree / decisive if decisive else None


@dataclass(frozen=True)
class AgreementReport:
    """Agreement per human level (``"5/5"``, ``"4/5"``, ...; most unanimous first), overall.

    ``no_majority`` counts items whose human votes split evenly; they have no majority to
    reproduce and appear in no level.
    """

    levels: dict[str, AgreementLevel]
    overall: AgreementLevel
    no_majority: int


def judge_human_agreement(
    items: Iterable[tuple[Verdict | None, Sequence[str]]], *, seed: int = 0
) -> AgreementReport:
    """Judge verdict vs human majority vote, split by how many annotators formed the majority.

    Each item is ``(judge_verdict, human_votes)`` with the verdict ``'A'``, ``'B'``, ``'tie'`` or
    ``None`` (unparseable) and votes ``'A'`` or ``'B'`` from each annotator. The coin flips are
    drawn from ``seed`` in item order, so the report is reproducible. Raises ``ValueError`` for no
    items, an item without votes, or a verdict or vote outside those values.
    """
    rng = random.Random(seed)
    tallies: dict[str, list[int]] = {}  # level -> [pairs, unscored, ties, flip_agree, excl_agree]
    order: dict[str, float] = {}
    no_majority = 0
    count = 0
    for index, (verdict, votes) in enumerate(items):
        count += 1
        if verdict not in ("A", "B", "tie", None):
            raise ValueError(
                f"item {index}: verdict must be 'A', 'B', 'tie' or None, got {verdict!r}"
            )
        if not votes:
            raise ValueError(f"item {index}: no human votes")
        bad = [v for v in votes if v not in ("A", "B")]
        if bad:
            raise ValueError(f"item {index}: human votes must be 'A' or 'B', got {bad[0]!r}")
        a_votes = sum(v == "A" for v in votes)
        top = max(a_votes, len(votes) - a_votes)
        if 2 * top == len(votes):
            no_majority += 1
            continue
        majority = "A" if 2 * a_votes > len(votes) else "B"
        level = f"{top}/{len(votes)}"
        order[level] = top / len(votes)
        tally = tallies.setdefault(level, [0, 0, 0, 0, 0])
        tally[0] += 1
        if verdict is None:
            tally[1] += 1
        elif verdict == "tie":
            tally[2] += 1
            tally[3] += rng.choice(("A", "B")) == majority
        else:
            tally[3] += verdict == majority
            tally[4] += verdict == majority
    if count == 0:
        raise ValueError("no items to compare: the item list is empty")
    levels = {
        level: AgreementLevel(level, *tallies[level])
        for level in sorted(tallies, key=lambda lv: (-order[lv], lv))
    }
    totals = [sum(t[i] for t in tallies.values()) for i in range(5)]
    return AgreementReport(levels, AgreementLevel("all", *totals), no_majority)


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa between two label sequences over the same items.

    ``(p_o − p_e) / (1 − p_e)`` with ``p_o`` the observed agreement and ``p_e`` the agreement
    expected from the two label distributions. When both sides use one and the same label
    throughout, ``p_e = 1`` and kappa is undefined: the result is NaN rather than a made-up
    number. Raises ``ValueError`` for empty or unequal-length sequences.
    """
    if len(first) != len(second):
        raise ValueError(f"label sequences differ in length: {len(first)} vs {len(second)}")
    if not first:
        raise ValueError("no labels to compare: the sequences are empty")
    n = len(first)
    observed = sum(x == y for x, y in zip(first, second, strict=True)) / n
    left, right = Counter(first), Counter(second)
    expected = sum(left[label] * right[label] for label in left) / (n * n)
    if expected == 1.0:
        return math.nan
    return (observed - expected) / (1.0 - expected)


def kendall_tau(
    first: Mapping[str, float] | Sequence[str], second: Mapping[str, float] | Sequence[str]
) -> float:
    """Kendall's tau-b between two system orderings (ties handled).

    Each side is either scores per system (higher is better; equal scores are ties) or a ranking
    as a list of systems, best first. Both must cover the same systems. Tau-b is
    ``(concordant − discordant) / sqrt((n0 − t1)(n0 − t2))`` where ``n0`` counts pairs and
    ``t1``, ``t2`` the pairs tied on each side; it is NaN when one side ties everything.
    Raises ``ValueError`` when the systems differ or fewer than two are given.
    """
    x, y = _scores(first), _scores(second)
    if x.keys() != y.keys():
        only_first = sorted(x.keys() - y.keys())
        only_second = sorted(y.keys() - x.keys())
        raise ValueError(
            f"rankings cover different systems: only in first {only_first}, "
            f"only in second {only_second}"
        )
    if len(x) < 2:
        raise ValueError(f"need at least two systems to rank, got {len(x)}")
    concordant = discordant = tied_x = tied_y = 0
    for p, q in combinations(sorted(x), 2):
        dx, dy = x[p] - x[q], y[p] - y[q]
        if dx == 0:
            tied_x += 1
        if dy == 0:
            tied_y += 1
        if dx * dy > 0:
            concordant += 1
        elif dx * dy < 0:
            discordant += 1
    pairs = len(x) * (len(x) - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def _scores(ranking: Mapping[str, float] | Sequence[str]) -> dict[str, float]:
    """Scores per system; a best-first list becomes descending scores."""
    if isinstance(ranking, Mapping):
        return {name: float(score) for name, score in ranking.items()}
    if isinstance(ranking, str):
        raise ValueError("a ranking must be a list of systems or a score mapping, not a string")
    if len(set(ranking)) != len(ranking):
        duplicates = sorted({s for s in ranking if list(ranking).count(s) > 1})
        raise ValueError(f"a ranking lists a system twice: {duplicates}")
    return {name: float(-position) for position, name in enumerate(ranking)}
