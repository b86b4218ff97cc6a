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

The unit of the test is the cluster. Items of one source (an AutoBench-V fine aspect, a
CircularEval group, an MME picture) share their outcome, so an earlier item of a cluster
predicts the next one and a test fed item by item breaks Ville's condition E[D | past] ≤ 0: on
a benchmark whose items' differences correlate 0.5 within clusters of ten, the per-item test
claims a difference between two equal models several times as often as its α
(``bench/bench_budget.py``). The rounds therefore ask whole clusters (:func:`.cluster_order`)
and :meth:`StoppingRule.observe_clusters` feeds each pair's test one value per cluster: the
cluster's summed paired difference divided by the largest cluster's size m, so it lies in
[−1, 1]. Clusters are drawn independently of each other, so these values are independent
given the past, and the mean of the value is E[Σ_c D] / m: the null "A is not better",
E[value] ≤ 0, is exactly "the item-weighted mean difference (Σ over clusters of the summed
differences, over Σ of their sizes) is at most 0", the same figure the accuracy tables give,
not a mean of cluster means. Items that are their own cluster (m = 1) give each item's
difference, so an unclustered benchmark's test, decisions and texts are those of the per-item
rule, bit for bit. What the test assumes, as every clustered interval does: clusters, not
items, are the independent draws (and, as the stratified order's interleaving approximates,
each stratum's mean difference is at most 0 under the null).
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
"""Paired units (items, or clusters where items cluster) a pair's test needs before the
futility projection may stop it."""

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
    unit: str = "item"
    """The test's unit: "item", or what a cluster is ("fine aspect", "circular group", ...)."""
    clusters: int = 0
    """Clusters (items, where each is its own) the decision rests on."""


class StoppingRule:
    """What both rules share: the models, their mean scores and the paired tests."""

    def __init__(
        self,
        models: Sequence[str],
        alpha: float,
        pair_alpha: float,
        *,
        unit: str = "item",
        largest: int = 1,
    ) -> None:
        if len(set(models)) != len(models) or len(models) < 2:
            raise ValueError(f"need at least two distinct models, got {list(models)}")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
        if largest < 1:
            raise ValueError(f"the largest cluster must hold at least one item, got {largest}")
        self.models = list(models)
        self.alpha = alpha
        self.unit = unit
        self.largest = largest
        """Items in the largest cluster the run can draw: a cluster's summed difference is
        divided by it (fixed before any answer, so every value lies in [-1, 1])."""
        self.tests = {pair: PairedTest(pair_alpha) for pair in combinations(self.models, 2)}
        self.paired = dict.fromkeys(self.tests, 0)
        """Per pair: the items both models answered."""
        self.clusters = 0
        self.sums = dict.fromkeys(self.models, 0.0)
        self.counts = dict.fromkeys(self.models, 0)

    @property
    def clustered(self) -> bool:
        """Whether the test's unit is a cluster of several items."""
        return self.largest > 1

    def observe(self, items: Sequence[ItemScores]) -> None:
        """Take the next items' scores, in the draw order, each item its own cluster."""
        self.observe_clusters([[item] for item in items])

    def observe_clusters(self, clusters: Sequence[Sequence[ItemScores]]) -> None:
        """Take the next whole clusters' scores, in the draw order: each pair's test gets one
        value per cluster, its summed paired difference over :attr:`largest`."""
        if any(len(cluster) > self.largest for cluster in clusters):
            raise ValueError(f"a cluster holds more than the largest's {self.largest} items")
        items = [item for cluster in clusters for item in cluster]
        for model in self.models:
            seen = [s for item in items if (s := item.get(model)) is not None]
            self.sums[model] += sum(seen)
            self.counts[model] += len(seen)
        self.clusters += len(clusters)
        for (a, b), test in self.tests.items():
            values = []
            for cluster in clusters:
                diffs = [
                    sa - sb
                    for item in cluster
                    if (sa := item.get(a)) is not None and (sb := item.get(b)) is not None
                ]
                if diffs:
                    values.append(sum(diffs) / self.largest)
                    self.paired[a, b] += len(diffs)
            test.observe(values)

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
        # The test counts clusters: project over the clusters the items left make, at the
        # mean paired items per cluster seen (rounded up: the projection stays optimistic).
        paired = self.paired[(a, b) if (a, b) in self.paired else (b, a)]
        more = -(-remaining * test.n // paired)
        return test.projected_log_wealth(more) < test.threshold

    def on(self, a: str, b: str) -> str:
        """What the pair's test rests on: "N paired items" (its clusters: :meth:`stated`)."""
        paired = self.paired[(a, b) if (a, b) in self.paired else (b, a)]
        return f"{paired} paired items"

    def stated(self, test: PairedTest) -> str:
        """The test as the decision names it, with its unit where items cluster."""
        over = f" over {test.n} {self.unit.replace(' ', '-')} clusters" if self.clustered else ""
        return f"anytime-valid paired test{over}, α = {self.alpha:g}, p ≤ {test.p_value:.3g}"

    def points(self, a: str, b: str) -> str:
        return f"{100 * (self.mean(a) - self.mean(b)):+.1f} points"

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        raise NotImplementedError

    def _decision(
        self,
        done: bool,
        answered: bool,
        text: str,
        order: tuple[str, ...],
        unresolved: tuple[tuple[str, str], ...] = (),
        p_value: float | None = None,
    ) -> Decision:
        return Decision(
            done, answered, text, self.alpha, order, unresolved, p_value, self.unit, self.clusters
        )


def _cannot(pairs: Sequence[tuple[str, str]], remaining: int) -> str:
    why = "the budget is spent" if remaining <= 0 else "projected from the items left"
    names = "; ".join(f"{a} and {b}" for a, b in pairs)
    return f"cannot separate {names} within budget ({why})"


class CompareRule(StoppingRule):
    """ "Is A better than B": stops when the paired test claims a direction at level α."""

    def __init__(
        self, a: str, b: str, alpha: float = 0.05, *, unit: str = "item", largest: int = 1
    ) -> None:
        super().__init__([a, b], alpha, alpha, unit=unit, largest=largest)
        self.a, self.b = a, b

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        test = self.tests[self.a, self.b]
        better, worse = (self.a, self.b) if test.mean >= 0 else (self.b, self.a)
        stated, on = self.stated(test), self.on(self.a, self.b)
        if test.verdict:
            better, worse = (self.a, self.b) if test.verdict == 1 else (self.b, self.a)
            text = (
                f"{better} is better than {worse}: {self.points(better, worse)} on {on} "
                f"({stated}; a wrong claim has at most {self.alpha:.0%} chance)"
            )
            return self._decision(True, True, text, (better, worse), (), test.p_value)
        pair = ((better, worse),)
        if self.hopeless(self.a, self.b, remaining):
            text = f"{_cannot(pair, remaining)}: {self.points(better, worse)} ({stated})"
            return self._decision(True, False, text, (better, worse), pair, test.p_value)
        text = f"undecided: {self.points(better, worse)} on {on} ({stated})"
        return self._decision(False, False, text, (better, worse), pair, test.p_value)


class RankRule(StoppingRule):
    """ "Rank these models": stops when every adjacent pair is separated (or hopeless)."""

    def __init__(
        self, models: Sequence[str], alpha: float = 0.05, *, unit: str = "item", largest: int = 1
    ) -> None:
        pairs = len(models) * (len(models) - 1) // 2
        super().__init__(models, alpha, alpha / max(pairs, 1), unit=unit, largest=largest)

    def decide(self, remaining: int) -> Decision:
        """The decision after the items seen, with ``remaining`` items still affordable."""
        order = tuple(sorted(self.models, key=lambda m: (-self.mean(m), m)))
        open_pairs = [(high, low) for high, low in pairwise(order) if not self.separated(high, low)]
        shown = " > ".join(f"{m} ({100 * self.mean(m):.1f}%)" for m in order)
        family = f"hold together with chance ≥ {1 - self.alpha:.0%} (α = {self.alpha:g})"
        if self.clustered:
            family += f", tested over {self.clusters} {self.unit} clusters"
        if not open_pairs:
            text = f"ranking {shown}: every adjacent pair separated; the claims {family}"
            return self._decision(True, True, text, order)
        unresolved = tuple(open_pairs)
        if all(self.hopeless(a, b, remaining) for a, b in open_pairs):
            text = (
                f"ranking {shown}: {_cannot(open_pairs, remaining)}; the separated pairs {family}"
            )
            return self._decision(True, False, text, order, unresolved)
        text = f"undecided: {shown}; {len(open_pairs)} adjacent pair(s) not yet separated"
        return self._decision(False, False, text, order, unresolved)
