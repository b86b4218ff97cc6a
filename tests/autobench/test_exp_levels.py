"""Leakage and ranks per difficulty level, on hand-made responses with hand-worked tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from level_answers import BENCH, level_store

from lvlmbench.autobench.exp_levels import leakage_by_level, ranks_by_level
from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import Response


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = level_store(tmp_path / "s.db")
    yield opened
    opened.close()


def test_ranks_per_level_worked_by_hand(store: Store):
    ranks = {(r.level, r.model): r.rank for r in ranks_by_level(store, BENCH)}
    assert ranks == {
        ("easy", "m1"): 1,
        ("easy", "m2"): 2,  # 3/4 tied with m3: both second
        ("easy", "m3"): 2,
        ("medium", "m2"): 1,
        ("medium", "m1"): 2,
        ("medium", "m3"): 3,
        ("hard", "m1"): 1,  # 1/4 tied with m3: both first, m2 third
        ("hard", "m3"): 1,
        ("hard", "m2"): 3,
    }
    levels = list(dict.fromkeys(r.level for r in ranks_by_level(store, BENCH)))
    assert levels == ["easy", "medium", "hard"]  # difficulty order, not alphabetical


def test_rank_interval_is_wilson(store: Store):
    m2_easy = next(r for r in ranks_by_level(store, BENCH) if (r.level, r.model) == ("easy", "m2"))
    low, high = m2_easy.score.interval
    assert m2_easy.score.accuracy == 0.75
    assert low == pytest.approx(0.3006, abs=1e-3) and high == pytest.approx(0.9544, abs=1e-3)


def test_leakage_per_level_worked_by_hand(store: Store):
    rows = {row.level: row for row in leakage_by_level(store, BENCH, ["m1", "m2", "m3"])}
    assert list(rows) == ["easy", "medium", "hard"]
    easy, medium, hard = rows["easy"], rows["medium"], rows["hard"]
    assert {m: a.accuracy for m, a in easy.description_only.items()} == {
        "m1": 0.5,
        "m2": 0.5,
        "m3": 0.5,
    }
    assert easy.spread_std == 0.0 and easy.spread_range == 0.0
    # 0.25, 0.5, 0.0: mean 0.25, population variance (0 + 0.0625 + 0.0625) / 3
    assert hard.spread_range == 0.5
    assert hard.spread_std == pytest.approx((0.125 / 3) ** 0.5)
    assert medium.description_only == {} and medium.with_image["m2"].correct == 3
    assert hard.with_image["m1"].answered == 4


def test_leakage_per_level_only_for_the_models_asked(store: Store):
    rows = leakage_by_level(store, BENCH, ["m1"])
    assert all(set(r.description_only) <= {"m1"} for r in rows)


def test_a_model_that_answered_part_of_a_level_is_not_ranked_there(store: Store):
    # "part" answered one easy item, rightly: 100 % at easy on 1 of its 4 items. It used to
    # rank first there, above m1's 4 of 4 answered.
    easy = next(i for i in iter_items(store, BENCH) if i.meta.get("difficulty") == "easy")
    assert easy.answer is not None
    put_responses(
        store, [Response(item_id=easy.id, model="part", text=easy.answer, extracted=easy.answer)]
    )
    ranks = {(r.level, r.model): r.rank for r in ranks_by_level(store, BENCH)}
    assert ("easy", "part") not in ranks
    assert (ranks["easy", "m1"], ranks["easy", "m2"], ranks["easy", "m3"]) == (1, 2, 2)
