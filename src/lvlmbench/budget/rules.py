"""Rounds and stopping rules of a budgeted evaluation.

A budgeted run asks the items of a stratified order (:mod:`.draws`) in rounds of growing size
(:func:`round_ends`: doubling, so a run that needs n items asks fewer than 2n and looks at the
data only log₂ times), feeds each round's scores to a rule and stops as soon as the rule's
question is answered:

- :class:`CompareRule`, "is A better than B": the anytime-valid paired test of
  :mod:`.sequential` at level α; the chance of a wrong claim is at most α.
- :class:`RankRule`, "rank these models": every adjacent pair of the current order must be
  separated by the same test, run for every pair at α / (number of pairs) (Bonferroni: the
  adjacency is decided by the data, so every pair that could become adjacent is paid for), so
  the whole ranking is wrong with chance at most α.

Both stop early with no claim when a pair "cannot be separated within budget": the items left
are spent, or (after :data:`MIN_FUTILITY_ITEMS`) even an optimistic projection of the observed
difference would not reach the test's threshold with the items left. That stop never makes a
claim, so it cannot raise the error rate; it only saves the budget a hopeless pair would burn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from lvlmbench.budget.sequential import PairedTest

__all__ = [
    "MIN_FUTILITY_ITEMS",
    "CompareRule",
    "Decision",
    "ItemScores",
    "RankRule",
    "StoppingRule",
    "round_ends",
]

MIN_FUTILITY_ITEMS = 30
"""Paired items a pair needs before the futility projection may stop it."""

ItemScores = Mapping[str, float | None]
"""One item's score per model, in [0, 1] (a mean over epochs), None where it has no answer."""


def round_ends(total: int, first: int, growth: float = 2.0) -> list[int]:
    """Items asked by the end of each round: ``first``, then ``growth`` times more each round,
    capped at ``total`` (the last round asks whatever is left)."""
    if first < 1 or growth <= 1:
        raise ValueError(
            f"first round must be at least 1 and growth above 1, got {first}, {growth}"
        )
    ends: list[int] = []
    end = first
    while total > 0:
        ends.append(min(end, total))
        if end >= total:
            break
        end = max(end + 1, math.ceil(end * growth))
    return ends


@dataclass(frozen=True)
class Decision:
    """Where a budgeted run stands after a round."""

    done: bool
    answered: bool
    """The question was answered (a claim at level α); False: undecided or cannot separate."""
    text: str
    alpha: float
    order: tuple[str, ...]
    """Models best first by their mean score (for compare: the claimed better one first)."""
    unresolved: tuple[tuple[str, str], ...] = ()
    """Adjacent pairs the test has not separated."""
    p_value: float | None = None
    """Anytime-valid p-value of the compare test (None for a ranking)."""


class StoppingRule:
    """What both rules share: the models, their mean scores and the paired tests."""

    def __init__(self, models: Sequence[str], alpha: float, pair_alpha: float) -> None:
        if len(set(models)) != len(models) or len(models) < 2:
            raise ValueError(f"need at least two distinct models, got {list(models)}")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
        self.models = list(models)
        self.alpha = alpha
        self.tests = {pair: PairedTest(pair_alpha) for pair in combinations(self.models, 2)}
        self.sums = dict.fromkeys(self.models, 0.0)
        self.counts = dict.fromkeys(self.models, 0)

    def observe(self, items: Sequence[ItemScores]) -> None:
        """Take the next items' scores, in the draw order."""
        for model in self.models:
            seen = [s for item in items if (s := item.get(model)) is not None]
            self.sums[model] += sum(seen)
            self.counts[model] += len(seen)
        for (a, b), test in self.tests.items():
            diffs = []
            for item in items:
                sa, sb = item.get(a), item.get(b)
                if sa is not None and sb is not None:
                    diffs.append(sa - sb)
            test.observe(diffs)

    def mean(self, model: str) -> float:
        return self.sums[model] / self.counts[model] if self.counts[model] else 0.0

    def separated(self, high: str, low: str) -> bool:
        """Whether the test has claimed ``high`` better than ``low``."""
        if (high, low) in self.tests:
            return self.tests[high, low].verdict == 1
        return self.tests[low, high].verdict == -1

    def test_of(self, a: str, b: str) -> PairedTest:
        return self.tests[(a, b)] if (a, b) in self.tests else self.tests[(b, a)]

    def hopeless(self, a: str, b: str, remaining: int) -> bool:
        """Whether the pair cannot be separated with the ``remaining`` items."""
        test = self.test_of(a, b)
        if remaining <= 0:
            return True
        if test.n < MIN_FUTILITY_ITEMS:
            return False
        return test.projected_log_wealth(remaining) < test.threshold

    def points(self, a: str, b: str) -> str:
        return f"{100 * (self.mean(a) - self.mean(b)):+.1f} points"

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        raise NotImplementedError


def _cannot(pairs: Sequence[tuple[str, str]], remaining: int) -> str:
    why = "the budget is spent" if remaining <= 0 else "projected from the items left"
    names = "; ".join(f"{a} and {b}" for a, b in pairs)
    return f"cannot separate {names} within budget ({why})"


class CompareRule(StoppingRule):
    """ "Is A better than B": stops when the paired test claims a direction at level α."""

    def __init__(self, a: str, b: str, alpha: float = 0.05) -> None:
        super().__init__([a, b], alpha, alpha)
        self.a, self.b = a, b

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        test = self.tests[self.a, self.b]
        better, worse = (self.a, self.b) if test.mean >= 0 else (self.b, self.a)
        stated = f"anytime-valid paired test, α = {self.alpha:g}, p ≤ {test.p_value:.3g}"
        if test.verdict:
            better, worse = (self.a, self.b) if test.verdict == 1 else (self.b, self.a)
            text = (
                f"{better} is better than {worse}: {self.points(better, worse)} on {test.n} "
                f"paired items ({stated}; a wrong claim has at most {self.alpha:.0%} chance)"
            )
            return Decision(True, True, text, self.alpha, (better, worse), (), test.p_value)
        pair = ((better, worse),)
        if self.hopeless(self.a, self.b, remaining):
            text = f"{_cannot(pair, remaining)}: {self.points(better, worse)} ({stated})"
            return Decision(True, False, text, self.alpha, (better, worse), pair, test.p_value)
        text = f"undecided: {self.points(better, worse)} on {test.n} paired items ({stated})"
        return Decision(False, False, text, self.alpha, (better, worse), pair, test.p_value)


class RankRule(StoppingRule):
    """ "Rank these models": stops when every adjacent pair is separated (or hopeless)."""

    def __init__(self, models: Sequence[str], alpha: float = 0.05) -> None:
        pairs = len(models) * (len(models) - 1) // 2
        super().__init__(models, alpha, alpha / max(pairs, 1))

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        order = tuple(sorted(self.models, key=lambda m: (-self.mean(m), m)))
        open_pairs = [(high, low) for high, low in pairwise(order) if not self.separated(high, low)]
        shown = " > ".join(f"{m} ({100 * self.mean(m):.1f}%)" for m in order)
        family = f"hold together with chance ≥ {1 - self.alpha:.0%} (α = {self.alpha:g})"
        if not open_pairs:
            text = f"ranking {shown}: every adjacent pair separated; the claims {family}"
            return Decision(True, True, text, self.alpha, order)
        unresolved = tuple(open_pairs)
        if all(self.hopeless(a, b, remaining) for a, b in open_pairs):
            text = (
                f"ranking {shown}: {_cannot(open_pairs, remaining)}; the separated pairs {family}"
            )
            return Decision(True, False, text, self.alpha, order, unresolved)
        text = f"undecided: {shown}; {len(open_pairs)} adjacent pair(s) not yet separated"
        return Decision(False, False, text, self.alpha, order, unresolved)
