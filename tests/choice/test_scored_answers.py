"""Accuracy tables from one pass over the answers (ScoredAnswers), read with the database's JSON
functions: every count below is worked out by hand, on SQLite and (integration) PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table, scored_answers
from lvlmbench.stats import ItemMean
from lvlmbench.store import Store, iter_answer_fields, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status

BENCH = "scored"


def _item(item_id: str, answer: str | None, level: str, split: str, kind: str = "mc"):
    meta = {"difficulty": level, "split": split} if level else {"split": split}
    return BenchmarkItem(
        id=item_id,
        benchmark=BENCH,
        question=f"{item_id}?",
        kind=kind,
        options={"A": "x", "B": "y", "C": "z"} if kind == "mc" else {},
        answer=answer,
        meta=meta,
    )


def _said(item_id: str, model: str, extracted: str | None, **fields) -> Response:
    return Response(
        item_id=item_id, model=model, text=extracted or "", extracted=extracted, **fields
    )


def _store(url: str, tmp_path: Path) -> Store:
    store = Store.open(url, images_dir=tmp_path / "images")
    put_items(
        store,
        [
            _item("i1", "A", "easy", "x"),
            _item("i2", "B", "easy", "y"),
            _item("i3", "C", "hard", "x"),
            _item("i4", None, "", "-"),  # no key (a TEST split)
            _item("i5", None, "easy", "x", kind="open"),  # open-ended: never scored
        ],
    )
    put_responses(
        store,
        [
            _said("i1", "m", "a "),  # right: case and spaces are ignored
            _said("i1", "m", "A", epoch=1),  # a second sample of i1, right
            _said("i2", "m", "A", extracted_by="openai/reader"),  # wrong, read by an LLM
            _said("i3", "m", None, status=Status.TRUNCATED, truncated=True),  # cut, unread
            _said("i3", "m", None, status=Status.ERROR, epoch=1),  # failed: not counted
            _said("i4", "m", "A"),  # no key
            _said("i5", "m", "a story"),
            _said("i1", "n", None, status=Status.UNPARSEABLE),
            _said("i2", "n", "B", truncated=True),  # cut but read, right
            _said("i1", "m", "B", variant="no-image"),
        ],
    )
    return store


def _row(
    model: str, group: tuple[str, ...], score: tuple[tuple[int, int], ...] = (), **counts: int
) -> AccuracyRow:
    """A row with these answer counts and ``score``: each scored item's (right answers,
    answers scored)."""
    defaults = dict(correct=0, answered=0, unparseable=0, failed=0)
    items = ItemMean.pooled(ItemMean.of_item(right, n) for right, n in score)
    return AccuracyRow(model, "default", group, **{**defaults, **counts}, score=items)


def test_answer_fields_read_the_record_fields(store_url, tmp_path):
    store = _store(store_url, tmp_path)
    found = {(a.item_id, a.model, a.epoch or 0): a for a in iter_answer_fields(store, BENCH, None)}
    assert len(found) == 10 - 1  # (i1, m, epoch 0) answered under two variants
    assert found[("i1", "m", 0)].extracted in ("a ", "B")
    llm = found[("i2", "m", 0)]
    assert (llm.status, llm.extracted, llm.extracted_by) == ("ok", "A", "openai/reader")
    cut = found[("i3", "m", 0)]
    assert (cut.status, cut.extracted, bool(cut.truncated)) == ("truncated", None, True)
    assert not found[("i1", "n", 0)].truncated and found[("i2", "n", 0)].truncated
    assert found[("i3", "m", 1)].epoch == 1
    only = list(iter_answer_fields(store, BENCH, "no-image"))
    assert [(a.item_id, a.model, a.extracted) for a in only] == [("i1", "m", "B")]
    assert list(iter_answer_fields(store, "other", None)) == []


def test_one_pass_gives_every_table(store_url, tmp_path):
    store = _store(store_url, tmp_path)
    answers = scored_answers(store, BENCH)
    m_all = dict(correct=2, answered=4, failed=1, llm_read=1, no_key=1, truncated=1)
    # The item is the unit: i1's two right answers make one item scoring 1, i2 and i3 score 0,
    # so m's accuracy is 1/3 over 3 items (not 2/4 over answers); i3's failed call is no answer.
    assert answers.table() == [
        _row("m", (), ((2, 2), (0, 1), (0, 1)), **m_all, truncated_unread=1),
        _row("n", (), ((1, 1), (0, 1)), correct=1, answered=2, unparseable=1, truncated=1),
    ]
    assert answers.table()[0].accuracy == pytest.approx(1 / 3)
    assert answers.table()[0].epochs == pytest.approx(4 / 3)
    by_level = answers.table(["difficulty"], models=["m"])
    assert by_level == [
        _row("m", ("-",), no_key=1),
        _row("m", ("easy",), ((2, 2), (0, 1)), correct=2, answered=3, llm_read=1),
        _row("m", ("hard",), ((0, 1),), answered=1, failed=1, truncated=1, truncated_unread=1),
    ]
    # A metadata column beyond the standard facets (an imported file's split).
    x_counts = dict(correct=2, answered=3, failed=1, truncated=1, truncated_unread=1)
    by_split = answers.table(["split"], models=["m"])
    assert by_split == [
        _row("m", ("-",), no_key=1),
        _row("m", ("x",), ((2, 2), (0, 1)), **x_counts),
        _row("m", ("y",), ((0, 1),), answered=1, llm_read=1),
    ]
    for by in ((), ["difficulty"], ["split"]):
        assert accuracy_table(store, BENCH, by) == answers.table(by)
    no_image = accuracy_table(store, BENCH, variant="no-image")
    assert [(r.model, r.variant, r.correct, r.answered) for r in no_image] == [
        ("m", "no-image", 0, 1)
    ]
