"""The unit order of a generation in rounds: every unit of the plan once, every prefix within
one unit of each stratum's share, and within a stratum every fine aspect's first description
before any second one (a stopped run pays for the first descriptions of many fine aspects, not
all descriptions of a few); a generation that decides builds whole fine aspects instead, the
test's clusters, and hands each to the decision once all its units are built."""

from __future__ import annotations

from collections import Counter

import pytest

from lvlmbench.autobench._backend import AspectPlan, PlannedAspect
from lvlmbench.autobench._finalize import item_id
from lvlmbench.autobench.rounds import (
    PlannedUnit,
    WholeClusters,
    cluster_units,
    ordered,
    strata_gap,
    unit_order,
)
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.types import BenchmarkItem


def _plan(generals: dict[str, int]) -> AspectPlan:
    """A plan with the given number of fine aspects per general aspect (uneven on purpose)."""
    aspects = [
        PlannedAspect(capability="c", general=g, fine=f"{g}-f{i}", guideline="")
        for g, fines in generals.items()
        for i in range(fines)
    ]
    return AspectPlan(capability="c", aspects=aspects)


PLAN = _plan({"position": 3, "counting": 1, "colour": 2})
SETTINGS = GenerateSettings(capability="c", per_aspect=4, levels=("easy", "hard"), seed=7)


def test_every_planned_unit_once_in_a_seeded_order() -> None:
    order = unit_order(PLAN, SETTINGS)
    keys = [u.key for u in order]
    assert len(keys) == len(set(keys)) == 6 * 2 * 4
    expected = {
        f"{a.general}|{a.fine}|{lv}|{i}"
        for a in PLAN.aspects
        for lv in ("easy", "hard")
        for i in range(4)
    }
    assert set(keys) == expected  # the keys the plain pipeline stores its units under
    assert [u.key for u in unit_order(PLAN, SETTINGS)] == keys  # the same on every run
    other = GenerateSettings(capability="c", per_aspect=4, levels=("easy", "hard"), seed=8)
    assert [u.key for u in unit_order(PLAN, other)] != keys


def test_every_prefix_keeps_each_stratum_within_one_unit() -> None:
    order = unit_order(PLAN, SETTINGS)
    sizes = Counter(u.stratum for u in order)
    for n in range(1, len(order) + 1):
        seen = Counter(u.stratum for u in order[:n])
        for stratum, size in sizes.items():
            assert abs(seen[stratum] - n * size / len(order)) <= 1, (n, stratum)
    assert strata_gap(order, order) == 0.0
    assert strata_gap(order[:5], order) < 1 / 5 + 1e-9  # one unit of five, at most


@pytest.mark.parametrize("seed", [0, 7])
def test_first_descriptions_of_every_fine_aspect_come_first(seed: int) -> None:
    settings = GenerateSettings(capability="c", per_aspect=4, levels=("easy", "hard"), seed=seed)
    order = unit_order(PLAN, settings)
    for stratum in {u.stratum for u in order}:
        indices = [u.index for u in order if u.stratum == stratum]
        assert indices == sorted(indices), stratum
        fines = [u.aspect.fine for u in order if u.stratum == stratum and u.index == 0]
        assert len(fines) == len(set(fines))  # each fine aspect once per index
    # So a short run asks description 0 of many groups: the first 12 units touch 12 groups.
    assert len({u.group for u in order[:12]}) == 12


def test_a_decision_builds_whole_fine_aspects_in_a_stratified_order() -> None:
    """``generate --until``: each fine aspect's 8 units (2 levels × 4) together, by level then
    index, the fine aspects in a seeded order stratified over their general aspects."""
    clusters = cluster_units(PLAN, SETTINGS)
    units = ordered(PLAN, SETTINGS, clusters)
    assert sorted(u.key for u in units) == sorted(u.key for u in unit_order(PLAN, SETTINGS))
    assert clusters.unit == "fine aspect" and clusters.largest == 8
    for k, keys in enumerate(clusters.clusters):
        group = units[8 * k : 8 * k + 8]
        assert [u.key for u in group] == list(keys) and len({u.aspect.fine for u in group}) == 1
        assert [(u.level, u.index) for u in group] == [
            (lv, i) for lv in ("easy", "hard") for i in range(4)
        ]
    # 3 position, 1 counting, 2 colour fine aspects: the systematic draw spreads each general
    # aspect over the order (the first three hold all three, the first two two of them).
    generals = [units[8 * k].aspect.general for k in range(6)]
    assert len(set(generals[:3])) == 3 and generals.count("position") == 3
    assert cluster_units(PLAN, SETTINGS) == clusters
    other = GenerateSettings(capability="c", per_aspect=4, levels=("easy", "hard"), seed=8)
    assert cluster_units(PLAN, other) != clusters


def _item(unit: PlannedUnit) -> BenchmarkItem:
    return BenchmarkItem(
        id=item_id(SETTINGS.benchmark, unit.key),
        benchmark=SETTINGS.benchmark,
        question="?",
        kind="tf",
        answer="yes",
    )


def test_a_fine_aspect_is_handed_to_the_decision_only_once_whole() -> None:
    clusters = cluster_units(PLAN, SETTINGS)
    units = ordered(PLAN, SETTINGS, clusters)
    whole = WholeClusters(clusters, SETTINGS.benchmark)
    # 12 units built: the first fine aspect whole (its 7 accepted units' items; one rejected),
    # the second half built: only the first is handed out.
    items = [_item(u) for u in units[:12] if u.key != units[3].key]
    first = whole.take(units[:12], items)
    assert [[i.id for i in c] for c in first] == [[i.id for i in items[:7]]]
    # The next round completes the second (its first half came in the round before).
    second = whole.take(units[:16], [_item(u) for u in units[12:16]])
    assert [i.id for i in second[0]] == [_item(u).id for u in units[8:16]]
    assert whole.take(units[:16], []) == [] and whole.tested == 2
