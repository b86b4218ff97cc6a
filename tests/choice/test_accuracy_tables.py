"""Accuracy tables (autobench.scoring) and leaderboards (autobench.leaderboard) on a small
hand-built store whose every number is worked out by hand below."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lvlmbench.autobench.leaderboard import leaderboard, write_leaderboard
from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table, item_facets
from lvlmbench.cli._tables import accuracy_rows_json
from lvlmbench.ratings import wilson_interval
from lvlmbench.store import Store, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status

OPTIONS = {"A": "red", "B": "blue", "C": "green", "D": "black"}


def _mc(
    item_id: str,
    answer: str,
    bench: str = "b1",
    *,
    capability: str | None = None,
    general: str | None = None,
    fine: str | None = None,
    difficulty: str | None = None,
    category: str | None = None,
) -> BenchmarkItem:
    meta = {
        key: value
        for key, value in (
            ("capability", capability),
            ("general_aspect", general),
            ("fine_aspect", fine),
            ("difficulty", difficulty),
        )
        if value is not None
    }
    return BenchmarkItem(
        id=item_id,
        benchmark=bench,
        question=f"question {item_id}?",
        kind="mc",
        options=OPTIONS,
        answer=answer,
        category=category,
        meta=meta,
    )


def _ok(item_id: str, model: str, extracted: str, variant: str = "default") -> Response:
    return Response(
        item_id=item_id, model=model, text=extracted, extracted=extracted, variant=variant
    )


def _bad(item_id: str, model: str, status: Status) -> Response:
    return Response(item_id=item_id, model=model, text="?", status=status, reason="test")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """b1: five choice items and one open item; b2: one more spatial item.

    m1 (default): i1 right, i2 wrong, i3 unparseable, i4 right (tf), i5 error, i6 (open) ok.
    m2 (default): i1 wrong, i2 right, i3 right, i4 error, i5 right; (no-image): i1 right.
    m3 (default): i1 right. m1 on b2: j1 right.
    """
    opened = Store.open(str(tmp_path / "s.db"))
    spatial = {"capability": "spatial"}
    put_items(
        opened,
        [
            _mc("i1", "A", **spatial, general="position", fine="left-right", difficulty="easy"),
            _mc("i2", "B", **spatial, general="position", fine="left-right", difficulty="hard"),
            _mc("i3", "C", **spatial, general="depth", fine="occlusion", difficulty="hard"),
            BenchmarkItem(
                id="i4",
                benchmark="b1",
                question="Is the circle red?",
                kind="tf",
                answer="true",
                meta={
                    "capability": "semantic",
                    "general_aspect": "objects",
                    "fine_aspect": "count",
                    "difficulty": "easy",
                },
            ),
            _mc("i5", "C", category="reasoning"),
            BenchmarkItem(
                id="i6",
                benchmark="b1",
                question="Describe it.",
                kind="open",
                reference="A red circle.",
                meta={"capability": "spatial", "difficulty": "easy"},
            ),
            _mc("j1", "D", bench="b2", **spatial, general="position", difficulty="easy"),
        ],
    )
    put_responses(
        opened,
        [
            _ok("i1", "m1", "A"),
            _ok("i2", "m1", "A"),
            _bad("i3", "m1", Status.UNPARSEABLE),
            _ok("i4", "m1", "true"),
            _bad("i5", "m1", Status.ERROR),
            Response(item_id="i6", model="m1", text="A red circle."),
            _ok("j1", "m1", "D"),
            _ok("i1", "m2", "B"),
            _ok("i2", "m2", "B"),
            _ok("i3", "m2", "C"),
            _bad("i4", "m2", Status.ERROR),
            _ok("i5", "m2", "C"),
            _ok("i1", "m2", "A", variant="no-image"),
            _ok("i1", "m3", "A"),
        ],
    )
    yield opened
    opened.close()


def _counts(rows: list[AccuracyRow]) -> dict[tuple[str, str, tuple[str, ...]], tuple[int, ...]]:
    """(model, variant, group) -> (correct, answered, unparseable, failed)."""
    return {
        (r.model, r.variant, r.group): (r.correct, r.answered, r.unparseable, r.failed)
        for r in rows
    }


def test_overall_counts_unparseable_as_wrong_and_skips_errors(store: Store) -> None:
    rows = accuracy_table(store, "b1")
    assert _counts(rows) == {
        # i1 right, i2 wrong, i3 unparseable (answered, wrong), i4 right; i5 error skipped;
        # the open item i6 is not a choice item and is left out.
        ("m1", "default", ()): (2, 4, 1, 1),
        ("m2", "default", ()): (3, 4, 0, 1),
        ("m3", "default", ()): (1, 1, 0, 0),
    }
    assert [r.model for r in rows] == ["m1", "m2", "m3"]
    by_model = {r.model: r for r in rows}
    assert by_model["m1"].accuracy == 0.5
    assert by_model["m2"].accuracy == 0.75
    assert by_model["m3"].accuracy == 1.0


def test_group_by_capability_uses_category_when_meta_lacks_it(store: Store) -> None:
    assert item_facets(_mc("x", "C", category="reasoning")) == {
        "capability": "reasoning",
        "general_aspect": "-",
        "fine_aspect": "-",
        "difficulty": "-",
    }
    assert _counts(accuracy_table(store, "b1", ["capability"], models=["m1", "m2"])) == {
        ("m1", "default", ("reasoning",)): (0, 0, 0, 1),
        ("m1", "default", ("semantic",)): (1, 1, 0, 0),
        ("m1", "default", ("spatial",)): (1, 3, 1, 0),
        ("m2", "default", ("reasoning",)): (1, 1, 0, 0),
        ("m2", "default", ("semantic",)): (0, 0, 0, 1),
        ("m2", "default", ("spatial",)): (2, 3, 0, 0),
    }


def test_group_by_aspects_and_difficulty(store: Store) -> None:
    assert _counts(accuracy_table(store, "b1", ["difficulty"], models=["m1"])) == {
        ("m1", "default", ("-",)): (0, 0, 0, 1),
        ("m1", "default", ("easy",)): (2, 2, 0, 0),
        ("m1", "default", ("hard",)): (0, 2, 1, 0),
    }
    assert _counts(accuracy_table(store, "b1", ["general_aspect"], models=["m2"])) == {
        ("m2", "default", ("-",)): (1, 1, 0, 0),
        ("m2", "default", ("depth",)): (1, 1, 0, 0),
        ("m2", "default", ("objects",)): (0, 0, 0, 1),
        ("m2", "default", ("position",)): (1, 2, 0, 0),
    }
    assert _counts(accuracy_table(store, "b1", ["fine_aspect", "difficulty"], models=["m1"])) == {
        ("m1", "default", ("-", "-")): (0, 0, 0, 1),
        ("m1", "default", ("count", "easy")): (1, 1, 0, 0),
        ("m1", "default", ("left-right", "easy")): (1, 1, 0, 0),
        ("m1", "default", ("left-right", "hard")): (0, 1, 0, 0),
        ("m1", "default", ("occlusion", "hard")): (0, 1, 1, 0),
    }


def test_pooled_benchmarks_variants_and_model_filter(store: Store) -> None:
    pooled = accuracy_table(store, ["b1", "b2"], ["capability"], models=["m1"])
    assert _counts(pooled)[("m1", "default", ("spatial",))] == (2, 4, 1, 0)
    # b2 alone: only its own item counts.
    assert _counts(accuracy_table(store, "b2")) == {("m1", "default", ()): (1, 1, 0, 0)}
    assert _counts(accuracy_table(store, "b1", variant="no-image")) == {
        ("m2", "no-image", ()): (1, 1, 0, 0)
    }
    every_variant = _counts(accuracy_table(store, "b1", variant=None, models=["m2"]))
    assert every_variant == {
        ("m2", "default", ()): (3, 4, 0, 1),
        ("m2", "no-image", ()): (1, 1, 0, 0),
    }
    assert accuracy_table(store, "no-such-benchmark") == []
    assert accuracy_table(store, "b1", models=[]) == []


def test_unknown_facet_is_rejected(store: Store) -> None:
    with pytest.raises(ValueError, match="aspect"):
        accuracy_table(store, "b1", ["aspect"])


def test_intervals_are_wilson_for_the_counts(store: Store) -> None:
    rows = accuracy_table(store, ["b1", "b2"], ["capability", "difficulty"], variant=None)
    assert len(rows) >= 8
    for row in rows:
        # Items without an AutoBench-V unit stand alone: Wilson, z the exact normal quantile
        # (1.95996..., not 1.96, hence the tolerance).
        expected = wilson_interval(row.correct, row.answered)
        assert row.interval == pytest.approx((expected.low, expected.high), abs=1e-4)
        assert row.estimate.method == ("wilson" if row.items else "none")
        assert row.estimate.cluster == "item"
    spatial_hard = next(r for r in rows if r.model == "m1" and r.group == ("spatial", "hard"))
    # 0 of 2: Wilson gives [0, z²/(n+z²)] = [0, 3.8416 / 5.8416].
    assert spatial_hard.interval[0] == 0.0
    assert spatial_hard.interval[1] == pytest.approx(3.8416 / 5.8416, abs=1e-4)
    failed_only = next(r for r in rows if r.model == "m1" and r.group == ("reasoning", "-"))
    assert failed_only.answered == 0
    assert failed_only.accuracy == 0.0 and failed_only.interval == (0.0, 1.0)


def test_rows_json_names_the_facets(store: Store) -> None:
    rows = accuracy_table(store, "b1", ["capability", "difficulty"], models=["m1"])
    out = accuracy_rows_json(rows, ["capability", "difficulty"])
    hard = next(r for r in out if r["difficulty"] == "hard")
    assert hard == {
        "model": "m1",
        "variant": "default",
        "capability": "spatial",
        "difficulty": "hard",
        "accuracy": 0.0,
        "ci_low": 0.0,
        "ci_high": pytest.approx(wilson_interval(0, 2).high, abs=1e-4),
        "clusters": 2,
        "cluster": "item",
        "estimator": "wilson",
        "confidence": 0.95,
        "adjustment": "none",
        "correct": 0,
        "answered": 2,
        "unparseable": 1,
        "failed": 0,
        "read_by_llm": 0,
        "no_key": 0,
        "truncated": 0,
        "truncated_unread": 0,
        "items": 2,
        "epochs": 1.0,
    }


def test_leaderboard_rows_over_benchmarks(store: Store) -> None:
    typed = leaderboard(store, ["b1", "b2"], ["m1", "m2"], ("capability", "difficulty"))
    assert all(list(row.group) == ["capability", "difficulty"] for row in typed)
    rows = [row.flat() for row in typed]
    assert list(rows[0]) == [
        "benchmark",
        "model",
        "capability",
        "difficulty",
        "accuracy",
        "ci_low",
        "ci_high",
        "items",
        "clusters",
        "cluster",
        "estimator",
        "epochs",
        "correct",
        "answered",
        "unparseable",
        "failed",
    ]
    keyed = {(r["benchmark"], r["model"], r["capability"], r["difficulty"]): r for r in rows}
    # m3 is not asked for, and m2's no-image response is another variant.
    assert {k[1] for k in keyed} == {"m1", "m2"}
    assert set(keyed) == {
        ("b1", "m1", "reasoning", "-"),
        ("b1", "m1", "semantic", "easy"),
        ("b1", "m1", "spatial", "easy"),
        ("b1", "m1", "spatial", "hard"),
        ("b1", "m2", "reasoning", "-"),
        ("b1", "m2", "semantic", "easy"),
        ("b1", "m2", "spatial", "easy"),
        ("b1", "m2", "spatial", "hard"),
        ("b2", "m1", "spatial", "easy"),
    }
    one_of_one = wilson_interval(1, 1)
    assert keyed[("b2", "m1", "spatial", "easy")] == {
        "benchmark": "b2",
        "model": "m1",
        "capability": "spatial",
        "difficulty": "easy",
        "accuracy": 100.0,
        "ci_low": round(100 * one_of_one.low, 2),
        "ci_high": 100.0,
        "items": 1,
        "clusters": 1,
        "cluster": "item",
        "estimator": "wilson",
        "epochs": 1.0,
        "correct": 1,
        "answered": 1,
        "unparseable": 0,
        "failed": 0,
    }
    assert keyed[("b2", "m1", "spatial", "easy")]["ci_low"] == 20.65
    m1_hard = keyed[("b1", "m1", "spatial", "hard")]
    assert (m1_hard["accuracy"], m1_hard["answered"], m1_hard["unparseable"]) == (0.0, 2, 1)
    m2_hard = keyed[("b1", "m2", "spatial", "hard")]
    assert (m2_hard["accuracy"], m2_hard["correct"], m2_hard["answered"]) == (100.0, 2, 2)
    m2_easy = keyed[("b1", "m2", "spatial", "easy")]
    assert (m2_easy["accuracy"], m2_easy["answered"]) == (0.0, 1)
    assert keyed[("b1", "m2", "semantic", "easy")]["failed"] == 1
    for row in rows:
        ci = wilson_interval(row["correct"], row["answered"])
        assert (row["ci_low"], row["ci_high"]) == (round(100 * ci.low, 2), round(100 * ci.high, 2))


def test_two_thirds_is_rounded_to_two_decimals(store: Store) -> None:
    rows = leaderboard(store, ["b1"], ["m2"], ("capability",))
    spatial = next(r.flat() for r in rows if r.group["capability"] == "spatial")
    assert (spatial["correct"], spatial["answered"], spatial["accuracy"]) == (2, 3, 66.67)


def test_written_files_match_the_rows(store: Store, tmp_path: Path) -> None:
    typed = leaderboard(store, ["b1", "b2"], ["m1", "m2"], ("capability", "difficulty"))
    out = tmp_path / "board" / "nested"
    paths = write_leaderboard(typed, out, {"benchmarks": ["b1", "b2"], "wall_s": 1.5})
    rows = [row.flat() for row in typed]
    assert [p.name for p in paths] == [
        "accuracy_by_group.csv",
        "accuracy_by_group.md",
        "summary.json",
    ]
    with paths[0].open(encoding="utf-8", newline="") as source:
        from_csv = list(csv.DictReader(source))
    assert from_csv == [{k: str(v) for k, v in row.items()} for row in rows]
    summary = json.loads(paths[2].read_text(encoding="utf-8"))
    assert summary == {"leaderboard": rows, "benchmarks": ["b1", "b2"], "wall_s": 1.5}
    lines = paths[1].read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 + len(rows)
    assert lines[0] == "| " + " | ".join(rows[0]) + " |"
    assert lines[2] == "| " + " | ".join(str(v) for v in rows[0].values()) + " |"


def test_empty_leaderboard_still_writes_its_files(tmp_path: Path) -> None:
    paths = write_leaderboard([], tmp_path)
    assert paths[0].read_text(encoding="utf-8").strip() == "model"
    assert paths[1].read_text(encoding="utf-8") == "(no results)\n"
    assert json.loads(paths[2].read_text(encoding="utf-8")) == {"leaderboard": []}
