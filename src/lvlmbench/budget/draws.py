"""Stratified draws for budgeted evaluation: one seeded order of items whose every prefix keeps
the full set's mix of strata (capability × aspect × difficulty, or any item facets).

A budgeted run asks the first n items of the order, then the first 2n, and so on; stopping after
any round must not skew the mix towards whichever stratum happened to come first, so the order
interleaves the strata proportionally. Each stratum's items are shuffled with a seed of their own
(adding items to one stratum leaves the other strata's draws alone), and item k of a stratum of
size s gets the position key (k + ½) / s: sorting all items by that key spreads each stratum
evenly over the order (systematic sampling), so any prefix of length n holds within one item of
n·s/N items of every stratum. Ties break by stratum name, so the order is the same on every
machine and every run, which is what makes a restarted budgeted run take the same draws.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

__all__ = ["facet_mix", "stratified_order"]


def stratified_order(strata: Mapping[str, Hashable], seed: int = 0) -> list[str]:
    """Every item id of ``strata`` (id → its stratum, e.g. a tuple of facet values), in an
    order whose prefixes keep the strata's proportions; deterministic for a given ``seed``."""
    by_stratum: dict[str, list[str]] = {}
    for item_id, stratum in strata.items():
        by_stratum.setdefault(repr(stratum), []).append(item_id)
    keyed: list[tuple[float, str, int, str]] = []
    for name in sorted(by_stratum):
        ids = sorted(by_stratum[name])
        random.Random(f"{seed}:{name}").shuffle(ids)
        size = len(ids)
        keyed.extend(((k + 0.5) / size, name, k, item_id) for k, item_id in enumerate(ids))
    keyed.sort()
    return [item_id for *_, item_id in keyed]


def facet_mix(ids: Sequence[str], strata: Mapping[str, Hashable]) -> dict[Hashable, float]:
    """Share of each stratum among ``ids`` (an early stop's items, or the full set)."""
    counts = Counter(strata[item_id] for item_id in ids)
    total = sum(counts.values())
    return {stratum: count / total for stratum, count in counts.items()} if total else {}
