"""``evaluate --limit N``: a seeded subset of a benchmark, stratified over the items' facets.

Strata are the items' capability (or category) × difficulty, whichever they have. Each stratum
gets a share of N proportional to its size (largest remainders, ties broken by stratum name), at
least one item while N allows, and its items are drawn with a seeded RNG from the stratum sorted
by id, so the same benchmark, N and seed give the same subset on every run and machine.

Items scored together are drawn together: a VLMEvalKit question with its CircularEval copies
(it counts right only when every copy is), an MME picture with its two questions (acc+). Drawn
one by one, ``--limit 200`` on MMBench left nearly every question with a copy unasked, and the
oracle's CircularEval read 0.0. Such a benchmark's subset is whole units, each stratum's share
filled unit by unit (so it can exceed N by less than one unit per stratum); a benchmark whose
items stand alone draws exactly as before.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from lvlmbench.stats import cluster_key
from lvlmbench.types import BenchmarkItem

__all__ = ["item_stratum", "scoring_unit", "stratified_subset"]

_SCORED_TOGETHER = frozenset({"circular group", "picture"})
"""Cluster kinds whose items one figure needs together (CircularEval, MME's acc+)."""


def scoring_unit(item: BenchmarkItem) -> str:
    """The unit an item is drawn with: its circular group or MME picture, else itself."""
    key = cluster_key(item)
    return f"{key.kind}:{key.key}" if key.kind in _SCORED_TOGETHER else f"item:{item.id}"


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
    :func:`item_stratum`, drawn with ``seed``; whole scoring units where items have them."""
    if n < 1:
        raise ValueError(f"limit must be at least 1, got {n}")
    units: dict[str, list[BenchmarkItem]] = {}
    for item in items:
        units.setdefault(scoring_unit(item), []).append(item)
    if all(len(members) == 1 for members in units.values()):
        return _single_items([members[0] for members in units.values()], n, seed)
    return _whole_units(units, n, seed)


def _single_items(items: list[BenchmarkItem], n: int, seed: int) -> set[str]:
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


def _whole_units(units: dict[str, list[BenchmarkItem]], n: int, seed: int) -> set[str]:
    """Units drawn in a seeded order per stratum (a unit's stratum is its first item's) until
    the stratum's share of ``n`` items is reached."""
    by_stratum: dict[tuple[str, str], list[str]] = {}
    for name, members in units.items():
        first = min(members, key=lambda item: item.id)
        by_stratum.setdefault(item_stratum(first), []).append(name)
    sizes = {s: sum(len(units[u]) for u in names) for s, names in by_stratum.items()}
    shares = _shares(sizes, n)
    chosen: set[str] = set()
    for stratum in sorted(by_stratum):
        rng = random.Random(f"{seed}:{stratum[0]}:{stratum[1]}")
        names = sorted(by_stratum[stratum])
        taken = 0
        for name in rng.sample(names, len(names)):
            if taken >= shares[stratum]:
                break
            chosen.update(item.id for item in units[name])
            taken += len(units[name])
    return chosen
