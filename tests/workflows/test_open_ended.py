"""The open-ended use case (``workflows.open_ended``): which scenes a limited run takes, which
instruction each scene gets, what a run with the default metrics reports as not runnable here,
and that a second run with the same settings rebuilds and recomputes nothing while new settings
give a new benchmark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lvlmbench.judging.metrics import DEFAULT_METRICS
from lvlmbench.store import Store, iter_items, iter_judgments, iter_responses
from lvlmbench.workflows.open_ended import build_open_benchmark, run_open_ended

TWO = ["basic understanding", "spatial understanding"]


def test_a_limited_run_takes_the_capabilities_in_turn_and_cycles_the_instructions(
    tmp_path: Path,
) -> None:
    store = Store.open(str(tmp_path / "open.db"))
    name, count = build_open_benchmark(store, seed=3, capabilities=TWO, limit=5)
    assert (name, count) == ("open-ended-s3", 5)
    items = list(iter_items(store, name))
    pairs = Counter((item.meta["capability"], item.meta["instruction_kind"]) for item in items)
    # Scene i comes from capability i mod 2 and gets instruction i mod 4 (the fifth scene wraps
    # round to "describe" again, from the first capability).
    assert pairs == Counter(
        [
            ("basic understanding", "describe"),
            ("spatial understanding", "count"),
            ("basic understanding", "caption"),
            ("spatial understanding", "story"),
            ("basic understanding", "describe"),
        ]
    )
    assert all(item.kind == "open" and item.reference for item in items)
    store.close()


async def test_the_same_settings_reuse_everything_and_new_ones_build_anew(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "open.db"))
    models = ["baseline/random", "baseline/oracle"]
    first = await run_open_ended(
        store, seed=1, capabilities=TWO, models=models, metrics=["length"], limit=4
    )
    assert first["items"] == 4 and first["metrics"] == ["length"]
    assert first["computed"] == {"length": 8}  # two models, four items
    responses = len(list(iter_responses(store)))
    assert responses == 8

    again = await run_open_ended(
        store, seed=1, capabilities=TWO, models=models, metrics=["length"], limit=4
    )
    assert again["computed"] == {"length": 0}
    assert again["scores"] == first["scores"]
    assert len(list(iter_responses(store))) == responses

    # Another seed is another benchmark: the first one's rows stay as they were.
    other = await run_open_ended(
        store, seed=2, capabilities=TWO, models=models, metrics=["length"], limit=4
    )
    assert other["benchmark"] == "open-ended-s2" and other["computed"] == {"length": 8}
    assert len(list(iter_items(store, "open-ended-s1"))) == 4
    assert len(list(iter_judgments(store))) == 16
    store.close()


async def test_default_metrics_always_include_random_and_length(tmp_path: Path) -> None:
    """``metrics=None`` runs what is installed; what is not is named with why, never dropped
    silently."""
    store = Store.open(str(tmp_path / "open.db"))
    result = await run_open_ended(
        store, seed=0, capabilities=TWO, models=["baseline/random"], metrics=None, limit=2
    )
    assert {"random", "length"} <= set(result["metrics"])
    assert set(result["metrics"]).isdisjoint(result["unavailable"])
    assert set(result["metrics"]) | set(result["unavailable"]) == set(DEFAULT_METRICS)
    assert all(reason for reason in result["unavailable"].values())
    store.close()
