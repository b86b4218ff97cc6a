"""The money side of a budgeted evaluation: what the answers used cost, and how many more items
fit in what is left of a cap in US dollars.

A budgeted run asks the items of one stratified order in rounds (:mod:`.rules`). Before each
round it must know what the round will cost, but a request's tokens are known only once it is
answered (the prompt's, images included, are counted by the provider). So the cost of an item is
learned from the items already used: while some model's cost is unknown the next round is a
single item (a probe); after that a round is asked only when its items, each costed as the
*dearest* item seen so far (the dearest answer of every model, times the answers each model
gives an item), fit in what is left of the cap, and it asks at most as many new items as were
used before it, so the estimate always rests on at least as many items as it extrapolates to.
That gives the guarantee the CLI states:

- the cap is exceeded only by the probe, asked before any cost is known (a cap below the cost of
  one item), or by a round whose new items turn out dearer than every item seen before, by at
  most that round's items times the difference. The draw order is random within strata, so each
  new item is dearer than all n seen before with chance about 1/(n+1): on average fewer than
  one item of a round (which asks at most n) costs more than planned;
- the rule's "items left" (its futility projection) is what the cap still affords, so a run the
  money cannot finish stops with "cannot separate ... within budget", never mid-claim.

What the answers used cost is their tokens at each model's price, whether they were paid for in
this run or found stored by an earlier one, exactly as ``--budget`` counts the stored answers'
calls: a budgeted run run again walks the same rounds to the same stop and pays nothing, and a
killed run resumed with the same cap spends no more than the cap in all. The full run's cost is
estimated from the *mean* item seen (an estimate, and labelled so), not the dearest.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Spend"]

_FIT = 1e-9
"""Relative slack when dividing what is left by an item's cost: 0.3 / 0.1 is 2.999…, 3 items."""


@dataclass
class Spend:
    """What the answers of a budgeted run's items cost, against an optional cap in USD."""

    models: Sequence[str]
    """The priced examinees (their stored identities)."""
    cap_usd: float | None = None
    """Most the answers used may cost (None: costs are only reported)."""
    samples_per_item: int = 1
    """Answers each model gives each item (epochs)."""
    used_usd: float = 0.0
    """What the answers of the items used so far cost, at each model's price."""
    dearest: dict[str, float] = field(default_factory=dict)
    """Per model: its dearest answer seen (USD)."""
    totals: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.cap_usd is not None and not (math.isfinite(self.cap_usd) and self.cap_usd > 0):
            raise ValueError(f"cap must be a positive number of USD, got {self.cap_usd}")
        if self.samples_per_item < 1:
            raise ValueError(f"samples per item must be at least 1, got {self.samples_per_item}")

    def observe(self, costs: Mapping[str, Iterable[float]]) -> None:
        """Take the cost (USD) of every answer of the items just used, per model. A sample with
        no answer (its call failed: it cost nothing and is asked again) is left out."""
        for model, seen in costs.items():
            for cost in seen:
                self.used_usd += cost
                self.dearest[model] = max(self.dearest.get(model, 0.0), cost)
                self.totals[model] = self.totals.get(model, 0.0) + cost
                self.counts[model] = self.counts.get(model, 0) + 1

    @property
    def known(self) -> bool:
        """Whether every model's cost per answer has been seen at least once."""
        return all(self.counts.get(m, 0) > 0 for m in self.models)

    @property
    def left_usd(self) -> float | None:
        """What is left of the cap (negative once exceeded; None without a cap)."""
        return None if self.cap_usd is None else self.cap_usd - self.used_usd

    def item_usd(self, *, dearest: bool) -> float:
        """One item's cost, all models and samples: the dearest seen (what rounds are planned
        with) or the mean (what the full run is estimated with). Unseen models count 0."""
        per_answer = {
            m: self.dearest.get(m, 0.0)
            if dearest
            else self.totals.get(m, 0.0) / max(self.counts.get(m, 0), 1)
            for m in self.models
        }
        return self.samples_per_item * sum(per_answer.values())

    def items_affordable(self, most: int) -> int:
        """How many more items (at most ``most``) the cap affords, each costed as the dearest
        item seen: ``most`` without a cap or while the cost is unknown."""
        left = self.left_usd
        if left is None or not self.known:
            return most
        if left <= 0:
            return 0
        item = self.item_usd(dearest=True)
        if item <= 0:
            return most  # priced at zero: the cap never binds
        return min(most, math.floor(left / item * (1 + _FIT)))

    def next_round(self, wanted: int, used: int) -> int:
        """Items the next round may ask of the ``wanted`` ones, ``used`` items having been
        asked: all without a cap; under one, a single item (a probe that learns the cost) while
        some model's cost is unknown, else what the cap affords and at most ``used``."""
        left = self.left_usd
        if left is None:
            return wanted
        if not self.known:
            return min(wanted, 1) if left > 0 else 0
        return self.items_affordable(min(wanted, max(used, 1)))

    def full_estimate_usd(self, pool: int, used: int) -> float | None:
        """The full run's estimated cost: the answers used plus the items left at the mean
        item's cost (None while some model's cost is unknown)."""
        if not self.known:
            return None
        return self.used_usd + max(pool - used, 0) * self.item_usd(dearest=False)
