"""Each benchmark's items fall into the clusters their sources make."""

from __future__ import annotations

from typing import Any, Literal

from lvlmbench.stats import cluster_key, cluster_keys
from lvlmbench.types import BenchmarkItem


def _item(
    item_id: str,
    kind: Literal["mc", "tf", "open"] = "open",
    images: list[str] | None = None,
    **meta: Any,
) -> BenchmarkItem:
    return BenchmarkItem(
        id=item_id, benchmark="b", question="q", kind=kind, images=images or [], meta=meta
    )


def test_autobench_units_of_one_fine_aspect_share_a_cluster_across_levels() -> None:
    unit = {"capability": "spatial", "general_aspect": "relations", "fine_aspect": "left of"}
    easy = _item("1", "mc", unit="relations|left of|easy|0", difficulty="easy", **unit)
    hard = _item("2", "mc", unit="relations|left of|hard|3", difficulty="hard", **unit)
    other = _item("3", "mc", unit="relations|above|easy|0", **{**unit, "fine_aspect": "above"})
    assert cluster_key(easy) == cluster_key(hard)
    assert cluster_key(easy).kind == "fine aspect"
    assert cluster_key(other) != cluster_key(easy)


def test_circular_copies_share_their_base_question() -> None:
    base = _item("a", "mc", index=17)
    copy = _item("b", "mc", index=2_000_017)
    other = _item("c", "mc", index=18)
    assert cluster_key(base) == cluster_key(copy) != cluster_key(other)
    assert cluster_key(base).kind == "circular group"


def test_mme_questions_on_one_picture_share_a_cluster() -> None:
    first = _item("a", "tf", images=["h1"], index=1)
    second = _item("b", "tf", images=["h1"], index=2)
    named = _item("c", "tf", images=["h2"], index=3, image_path="celebrity/x.jpg")
    assert cluster_key(first) == cluster_key(second)
    assert cluster_key(named).key == "celebrity/x.jpg"


def test_visit_and_touchstone_items_stand_alone() -> None:
    visit = _item("v1", images=["h1"], source_key="inst-1")
    touch = _item("t1", images=["h1"], index="7")
    name, keys = cluster_keys([visit, touch])
    assert name == "item" and keys == ["item:v1", "item:t1"]
