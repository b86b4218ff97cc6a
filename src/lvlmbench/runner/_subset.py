"""``evaluate --limit N``: a seeded subset of a benchmark, stratified over the items' facets.

Strata are the items' capability (or category) × difficulty, whichever they have. Each stratum
gets a share of N proportional to its size (largest remainders, ties broken by stratum name), at
least one item while N allows, and its items are drawn with a seeded RNG from the stratum sorted
by id, so the same benchmark, N and seed give the same subset on every run and machine.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from lvlmbench.types import BenchmarkItem

__all__ = ["item_stratum", "stratified_subset"]


def item_stratum(item: BenchmarkItem) -> tuple[str, str]:
    """(capability or category, difficulty) of an item, "-" where it has none."""
    capability = item.meta.get("capability") or item.category or "-"
    return str(capability), str(item.meta.get("difficulty") or "-")


def _shares(sizes: dict[tuple[str, str], int], n: int) -> dict[tuple[str, str], int]:
    total = sum(sizes.values())
    strata = sorted(sizes)
    if n >= total:
        return dict(sizes)
    # One item per stratum first while n allows (small strata are not dropped), then the rest
    # in proportion to size, largest remainders first.
    shares = {s: 0 for s in strata}
    if n >= len(strata):
        shares = {s: 1 for s in strata}
    left = n - sum(shares.values())
    room = {s: sizes[s] - shares[s] for s in strata}
    spare = sum(room.values())
    exact = {s: left * room[s] / spare if spare else 0.0 for s in strata}
    for s in strata:
        shares[s] += int(exact[s])
    order = sorted(strata, key=lambda s: (-(exact[s] - int(exact[s])), s))
    for s in order[: n - sum(shares.values())]:
        shares[s] += 1
    return shares


def stratified_subset(items: Iterable[BenchmarkItem], n: int, seed: int = 0) -> set[str]:
    """Ids of ``n`` items (all of them when there are fewer), stratified by
    :func:`item_stratum`, drawn with ``seed``."""
    if n < 1:
        raise ValueError(f"limit must be at least 1, got {n}")
    by_stratum: dict[tuple[str, str], list[str]] = {}
    for item in items:
        by_stratum.setdefault(item_stratum(item), []).append(item.id)
    shares = _shares({s: len(ids) for s, ids in by_stratum.items()}, n)
    chosen: set[str] = set()
    for stratum in sorted(by_stratum):
        # Seeded per stratum: adding items to one stratum leaves the others' draws alone.
        rng = random.Random(f"{seed}:{stratum[0]}:{stratum[1]}")
        chosen.update(rng.sample(sorted(by_stratum[stratum]), shares[stratum]))
    return chosen
