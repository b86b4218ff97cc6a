"""Gemma 3 270M (llama.cpp server) as pairwise and score judge: plumbing, not quality.

Whatever the tiny model replies is recorded; the run must finish, every reply must be stored
with a status, and the unparseable count must match the unparseable rows in the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lvlmbench.judging import (
    PAIRWISE,
    REFERENCE,
    SCORE,
    make_references,
    pairwise_report,
    reference_name,
    run_pairwise,
    run_score,
)
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.store import Store, iter_judgments, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status

pytestmark = pytest.mark.integration

BENCH = "llama-judge"


def _world(tmp_path: Path) -> Store:
    store = Store.open(str(tmp_path / "s.db"))
    items = [
        BenchmarkItem(
            id="j0",
            benchmark=BENCH,
            question="What fruit is on the table?",
            caption="A red apple lies on a wooden kitchen table.",
            reference="A red apple.",
            category="recognition",
        ),
        BenchmarkItem(
            id="j1",
            benchmark=BENCH,
            question="How many dogs are in the picture?",
            caption="Two brown dogs play on green grass.",
            reference="There are two dogs.",
            category="counting",
        ),
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id="j0", model="m/one", text="It is a red apple."),
            Response(item_id="j0", model="m/two", text="A banana."),
            Response(item_id="j1", model="m/one", text="Two dogs."),
            Response(item_id="j1", model="m/two", text="I see five cats."),
        ],
    )
    return store


def _judge(store: Store, server: Any) -> ModelClient:
    model = load_chat_model(f"openai/{server.model}", base_url=server.base_url, max_tokens="96")
    return ModelClient(model, store, concurrency=2)


def _stored(store: Store, protocol: str, status: Status) -> int:
    return sum(j.status is status for j in iter_judgments(store, protocol=protocol))


async def test_gemma_pairwise_judge(llama_server: Any, tmp_path: Path) -> None:
    store = _world(tmp_path)
    judge = _judge(store, llama_server)
    try:
        summary = await run_pairwise(store, BENCH, ["m/one", "m/two"], judge)
    finally:
        await judge.aclose()
    print("pairwise:", summary.ok, "ok", summary.unparseable, "unparseable", summary.reasons)
    for row in iter_judgments(store, protocol=PAIRWISE):
        print(row.order, row.status.value, row.verdict, repr((row.rationale or "")[-160:]))
    assert summary.total == 4 and summary.missing == 0
    assert summary.ok + summary.unparseable + summary.refused + summary.failed == 4
    assert summary.unparseable == _stored(store, PAIRWISE, Status.UNPARSEABLE)
    assert len(list(iter_judgments(store, protocol=PAIRWISE))) == 4
    report = pairwise_report(store, BENCH, judge.spec, rounds=20)
    assert report.pairs == 2
    assert report.statuses.get("unparseable", 0) == summary.unparseable


async def test_gemma_score_judge_with_caption_assisted_reference(
    llama_server: Any, tmp_path: Path
) -> None:
    store = _world(tmp_path)
    judge = _judge(store, llama_server)
    try:
        refs = await make_references(store, BENCH, judge)
        reference = reference_name(judge.spec) if refs.ok == 2 else REFERENCE
        summary = await run_score(store, BENCH, ["m/one"], judge, reference=reference)
    finally:
        await judge.aclose()
    print("score:", summary.ok, "ok", summary.unparseable, "unparseable", summary.reasons)
    for row in iter_judgments(store, protocol=SCORE):
        print(
            row.order, row.status.value, row.score_a, row.score_b, repr((row.rationale or "")[:120])
        )
    assert summary.total == 4
    assert summary.ok + summary.unparseable + summary.refused + summary.failed == 4
    assert summary.unparseable == _stored(store, SCORE, Status.UNPARSEABLE)
    for row in iter_judgments(store, protocol=SCORE):
        assert (row.score_a is None) == (row.status is not Status.OK)
