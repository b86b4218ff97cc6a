"""A full evaluation against a server that misbehaves: 429s with Retry-After, 500s, replies past
the timeout, malformed JSON, truncated bodies and dropped connections."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Faults

from lvlmbench.ids import content_id
from lvlmbench.models import ModelClient, RetryPolicy, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, Status

ITEMS = 120
FAULTS = Faults(
    rate_limit=0.12,
    server_error=0.08,
    slow=0.03,
    malformed=0.05,
    truncated=0.05,
    dropped=0.05,
    retry_after_s=0.2,
    slow_s=1.5,
    max_faults_per_prompt=2,
)


def _store(path: Path) -> Store:
    store = Store.open(str(path))
    put_benchmark(store, "faulty", "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=content_id("faulty", i),
                benchmark="faulty",
                kind="mc",
                question=f"Question {i}?",
                options={"A": "one", "B": "two", "C": "three", "D": "four"},
                answer="A",
            )
            for i in range(ITEMS)
        ],
    )
    return store


@pytest.mark.timeout(120)
async def test_every_item_ends_answered_once_despite_faults(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    with FakeOpenAIServer(latency_s=0.005, concurrency=16, faults=FAULTS, seed=3) as server:
        model = load_chat_model(f"openai/fake?base_url={server.base_url}&timeout=0.5")
        retry = RetryPolicy(max_retries=4, base_delay=0.01, max_delay=0.05)
        client = ModelClient(model, store, concurrency=16, retry=retry)
        summary = await run_examinee(store, "faulty", client)
        await client.aclose()
        stats = server.stats

    # Every kind of fault really happened.
    assert set(stats.faults) == {
        "rate_limit",
        "server_error",
        "slow",
        "malformed",
        "truncated",
        "dropped",
    }, stats.faults
    # Each item ends with exactly one stored response, ok, with a recorded answer.
    responses = list(iter_responses(store, model=client.spec))
    assert len(responses) == ITEMS == store.count(tables.responses)
    assert Counter(r.item_id for r in responses).most_common(1)[0][1] == 1
    assert all(r.status is Status.OK and r.extracted in "ABCD" for r in responses)
    assert summary.ok == ITEMS and summary.failed == 0
    # Calls add up: every request the server saw was made by the client, each fault cost one
    # retry, and no item was answered twice (answers are cached, never asked again).
    assert client.stats.requests == stats.requests
    assert client.stats.retries == sum(stats.faults.values())
    assert max(stats.answered.values()) == 1 and sum(stats.answered.values()) == ITEMS
    # A 429 is followed by a wait of at least its Retry-After (jitter only adds).
    # Other backoffs are at most max_delay (+ jitter), far below the 0.2 s Retry-After.
    assert sum(w >= FAULTS.retry_after_s for w in client.stats.waits) == stats.faults["rate_limit"]

    # Running again asks nothing: the same model on the same endpoint (now closed, so any
    # request would fail) finds every answer stored. Another endpoint would be another model.
    model = load_chat_model(f"openai/fake?base_url={server.base_url}&timeout=0.5")
    client = ModelClient(model, store, concurrency=16, retry=retry)
    rerun = await run_examinee(store, "faulty", client)
    await client.aclose()
    assert rerun.skipped == ITEMS and rerun.requests == 0 and rerun.failed == 0
