"""A full evaluation against a server that misbehaves: 429s with Retry-After, 500s, replies past
the timeout, malformed JSON, truncated bodies and dropped connections."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Faults
from quiz_store import put_numbered_quiz

from lvlmbench.models import ModelClient, RetryPolicy, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses
from lvlmbench.store import _schema as tables
from lvlmbench.types import Status

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
    return put_numbered_quiz(Store.open(str(path)), "faulty", ITEMS, "A")


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


HALF_FAULTS = Faults(
    rate_limit=0.1,
    server_error=0.1,
    malformed=0.05,
    truncated=0.125,
    dropped=0.125,
    retry_after_s=0.01,
    # Never healed by the server: with 3 attempts an item fails whenever all three draw a
    # fault (1 in 8), and its last fault is often a dropped connection or a truncated body,
    # the case that used to abort the whole run as "cannot reach the server".
    max_faults_per_prompt=1000,
)


@pytest.mark.timeout(120)
async def test_half_the_calls_failing_fails_items_never_the_run(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    retry = RetryPolicy(max_retries=2, base_delay=0.001, max_delay=0.005)
    with FakeOpenAIServer(concurrency=16, faults=HALF_FAULTS, seed=11) as server:
        model = load_chat_model(f"openai/fake?base_url={server.base_url}&timeout=2")
        client = ModelClient(model, store, concurrency=16, retry=retry)
        summary = await run_examinee(store, "faulty", client)  # raises RunAborted on abort
        await client.aclose()
        stats = server.stats
        faults, requests = dict(stats.faults), stats.requests
        answered = dict(stats.answered)
        responses = list(iter_responses(store, model=client.spec))

        # The next run, on the same endpoint now healthy, asks the failed items again, and
        # only them (another endpoint would be another model: it would ask everything).
        server.faults = Faults()
        client = ModelClient(model, store, concurrency=16, retry=retry)
        rerun = await run_examinee(store, "faulty", client)
        await client.aclose()
        rerun_requests = server.stats.requests - requests

    # About half the requests misbehaved, and every kind of fault happened.
    assert 0.4 < sum(faults.values()) / requests < 0.6, faults
    assert set(faults) == {"rate_limit", "server_error", "malformed", "truncated", "dropped"}
    # Every item ends with one stored response: ok with an answer, or failed with its reason.
    assert len(responses) == ITEMS == summary.ok + summary.failed
    assert Counter(r.item_id for r in responses).most_common(1)[0][1] == 1
    failed = [r for r in responses if r.status is not Status.OK]
    assert all(r.status is Status.ERROR and r.reason for r in failed)
    assert all(r.extracted in ("A", "B", "C", "D") for r in responses if r.status is Status.OK)
    assert 0 < len(failed) == summary.failed < ITEMS // 3
    # Among them, items whose last attempt lost its connection: failed alone, run went on.
    assert any("connection lost" in (r.reason or "") for r in failed), summary.reasons
    assert sum(summary.reasons.values()) == summary.failed
    # Nobody paid twice: every answer the server sent became exactly one ok response.
    assert max(answered.values()) == 1
    assert sum(answered.values()) == summary.ok
    assert rerun_requests == len(failed) == rerun.ok
    assert rerun.skipped == ITEMS - len(failed)
