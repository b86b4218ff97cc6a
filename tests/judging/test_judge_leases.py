"""Two runs of the same judge on one store at once share the judgments: none is paid twice."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes import ScriptedModel

from lvlmbench.judging import run_hallucination, run_pairwise
from lvlmbench.models import ModelClient
from lvlmbench.store import Store, iter_judgments, put_items, put_responses
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, Message, ModelOutput, Response

BENCH = "lease-judge"
MODELS = ["m/one", "m/two"]
ITEMS = 6


def _world(tmp_path: Path) -> Store:
    store = Store.open(str(tmp_path / "s.db"))
    items = [
        BenchmarkItem(
            id=f"it{i}",
            benchmark=BENCH,
            question=f"[it{i}] What is on the table?",
            caption=f"A red apple on a table (picture {i}).",
        )
        for i in range(ITEMS)
    ]
    put_items(store, items)
    answers = [
        Response(item_id=i.id, model=m, text=f"{m} says apple") for i in items for m in MODELS
    ]
    put_responses(store, answers)
    return store


def _verdict(_messages: list[Message]) -> ModelOutput:
    return ModelOutput(text="Both are fine.\n[[tie]]\nRating: 1")


def _judge() -> ScriptedModel:
    # No cache (store=None below): a judgment asked twice would show up as a second call.
    return ScriptedModel(steps=[_verdict] * 1000, spec="fake/judge", delay=0.01)


async def test_two_pairwise_runs_at_once_share_the_judgments(tmp_path: Path) -> None:
    store = _world(tmp_path)
    judges = [_judge(), _judge()]
    summaries = await asyncio.gather(
        *(
            run_pairwise(store, BENCH, MODELS, ModelClient(judge, None, concurrency=2))
            for judge in judges
        )
    )
    assert sum(len(judge.calls) for judge in judges) == ITEMS * 2  # 1 pair, 2 orders per item
    assert all(judge.calls for judge in judges)  # both took part
    assert sum(s.ok for s in summaries) == ITEMS * 2
    assert all(s.ok + s.skipped == ITEMS * 2 for s in summaries)
    assert len(list(iter_judgments(store))) == ITEMS * 2
    assert store.count(tables.leases) == 0


async def test_two_hallucination_runs_at_once_share_the_judgments(tmp_path: Path) -> None:
    store = _world(tmp_path)
    judges = [_judge(), _judge()]
    await asyncio.gather(
        *(
            run_hallucination(store, BENCH, MODELS, ModelClient(judge, None, concurrency=2))
            for judge in judges
        )
    )
    assert sum(len(judge.calls) for judge in judges) == ITEMS * len(MODELS)
    assert len(list(iter_judgments(store))) == ITEMS * len(MODELS)
