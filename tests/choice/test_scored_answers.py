"""Accuracy tables from one pass over the answers (ScoredAnswers), read with the database's JSON
functions: every count below is worked out by hand, on SQLite and (integration) PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table, scored_answers
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


def _row(model: str, group: tuple[str, ...], **counts: int) -> AccuracyRow:
    defaults = dict(correct=0, answered=0, unparseable=0, failed=0, items=0)
    return AccuracyRow(model, "default", group, **{**defaults, **counts})


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
    assert answers.table() == [
        _row("m", (), **m_all, truncated_unread=1, items=3),
        _row("n", (), correct=1, answered=2, unparseable=1, truncated=1, items=2),
    ]
    by_level = answers.table(["difficulty"], models=["m"])
    assert by_level == [
        _row("m", ("-",), no_key=1),
        _row("m", ("easy",), correct=2, answered=3, llm_read=1, items=2),
        _row("m", ("hard",), answered=1, failed=1, truncated=1, truncated_unread=1, items=1),
    ]
    # A metadata column beyond the standard facets (an imported file's split).
    by_split = answers.table(["split"], models=["m"])
    assert by_split == [
        _row("m", ("-",), no_key=1),
        _row(
            "m", ("x",), correct=2, answered=3, failed=1, truncated=1, truncated_unread=1, items=2
        ),
        _row("m", ("y",), answered=1, llm_read=1, items=1),
    ]
    for by in ((), ["difficulty"], ["split"]):
        assert accuracy_table(store, BENCH, by) == answers.table(by)
    no_image = accuracy_table(store, BENCH, variant="no-image")
    assert [(r.model, r.variant, r.correct, r.answered) for r in no_image] == [
        ("m", "no-image", 0, 1)
    ]
