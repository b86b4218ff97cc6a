"""The runner under leases: items another run holds are left to it, taken over when its lease
expires, and counted as skipped when it finishes them."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import ScriptedModel

from lvlmbench.models import ModelClient
from lvlmbench.runner import run_examinee
from lvlmbench.store import Leases, Store, put_items, put_responses, response_id
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, GenerationConfig, Message, ModelOutput, Response

BENCH = "lease-bench"
SPEC = "fake/scripted"


class CountingModel(ScriptedModel):
    """Answers A after a short delay and counts how often each question was asked."""

    def __init__(self) -> None:
        super().__init__(default_text="A", delay=0.005)
        self.asked: Counter[str] = Counter()

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        self.asked[messages[-1].text().split("?")[0]] += 1
        return await super().generate(messages, config)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "runner.db"))
    items = [
        BenchmarkItem(
            id=f"{BENCH}-{i}",
            benchmark=BENCH,
            kind="mc",
            question=f"Question {i}?",
            options={"A": "yes", "B": "no"},
            answer="A",
        )
        for i in range(12)
    ]
    put_items(opened, items)
    yield opened
    opened.close()


def _ghost(store: Store, item: str, seconds: float) -> Leases:
    """Another run, holding ``item`` for ``seconds``."""
    ghost = Leases(store, tables.responses, owner="ghost", lease_s=seconds)
    assert ghost.claim([response_id(item, SPEC)]).mine
    return ghost


async def test_an_item_held_by_a_dead_run_is_taken_over_after_its_lease(store: Store) -> None:
    _ghost(store, f"{BENCH}-3", seconds=0.6)  # the ghost never renews: it died
    model = CountingModel()
    started = time.monotonic()
    summary = await run_examinee(store, BENCH, ModelClient(model, store), lease_s=5)
    assert time.monotonic() - started >= 0.5  # it waited for the lease to run out
    assert summary.ok == 12 and summary.skipped == 0
    assert set(model.asked.values()) == {1} and len(model.asked) == 12
    assert store.count(tables.leases) == 0  # everything released at the end


async def test_an_item_another_run_finishes_is_skipped_not_asked(store: Store) -> None:
    ghost = _ghost(store, f"{BENCH}-5", seconds=30)  # alive: holds it well past this test

    async def ghost_finishes() -> None:
        await asyncio.sleep(0.3)
        answer = Response(item_id=f"{BENCH}-5", model=SPEC, text="A", extracted="A")
        put_responses(store, [answer])
        ghost.release()

    model = CountingModel()
    finishing = asyncio.create_task(ghost_finishes())
    summary = await run_examinee(store, BENCH, ModelClient(model, store))
    await finishing
    assert not [asked for asked in model.asked if asked.endswith("Question 5")]
    assert len(model.asked) == 11 and set(model.asked.values()) == {1}
    assert summary.ok == 11 and summary.skipped == 1
    assert store.count(tables.responses) == 12


async def test_two_runs_in_one_process_share_the_items(store: Store) -> None:
    model = CountingModel()
    first, second = ModelClient(model, store), ModelClient(model, store)
    summaries = await asyncio.gather(
        run_examinee(store, BENCH, first), run_examinee(store, BENCH, second)
    )
    assert set(model.asked.values()) == {1} and len(model.asked) == 12
    assert sum(s.ok for s in summaries) == 12
    assert all(s.ok + s.skipped == 12 for s in summaries)
