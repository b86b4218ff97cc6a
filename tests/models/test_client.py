import asyncio

import pytest
from fakes import ScriptedModel
from pydantic import BaseModel
from sqlalchemy import event

from lvlmbench.models import ErrorKind, ModelClient, ProviderError, RetryPolicy, RunAborted
from lvlmbench.store import Store
from lvlmbench.store import _schema as tables
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Status

FAST = RetryPolicy(base_delay=0.001, max_delay=0.01)


@pytest.fixture
def store(tmp_path):
    s = Store.open(str(tmp_path / "s.db"))
    yield s
    s.close()


async def test_identical_call_is_served_from_the_store(store, tmp_path):
    model = ScriptedModel()
    client = ModelClient(model, store)
    first = await client.generate([Message.user("hi")])
    second = await client.generate([Message.user("hi")])
    assert len(model.calls) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.text == first.text and second.attempts == 0
    # A new client on the reopened store (a re-run after a crash) pays nothing either.
    reopened = Store.open(str(tmp_path / "s.db"))
    again = await ModelClient(ScriptedModel(default_text="DIFFERENT"), reopened).generate(
        [Message.user("hi")]
    )
    assert again.text == first.text and again.cached
    different = await client.generate([Message.user("hi")], GenerationConfig(max_tokens=5))
    assert not different.cached and len(model.calls) == 2


async def test_errors_are_values_and_never_cached(store):
    model = ScriptedModel(
        steps=[ProviderError("HTTP 400: bad image", ErrorKind.FATAL, status_code=400)]
    )
    client = ModelClient(model, store, retry=FAST)
    failed = await client.generate([Message.user("q")])
    assert failed.status is Status.ERROR and "bad image" in (failed.reason or "")
    assert store.count(tables.cache) == 0
    retried = await client.generate([Message.user("q")])
    assert retried.ok and len(model.calls) == 2


async def test_transient_failures_are_retried_then_recorded(store):
    busy = ProviderError("HTTP 503", ErrorKind.TRANSIENT, status_code=503)
    model = ScriptedModel(steps=[busy, busy])
    client = ModelClient(model, store, retry=FAST)
    out = await client.generate([Message.user("q")])
    assert out.ok and out.attempts == 3 and client.stats.retries == 2
    model.steps = [busy] * 10
    exhausted = await ModelClient(
        model, store, retry=RetryPolicy(max_retries=2, base_delay=0.001)
    ).generate([Message.user("other")])
    assert exhausted.status is Status.ERROR


async def test_fatal_account_errors_abort_the_run(store):
    model = ScriptedModel(
        steps=[
            ProviderError(
                "HTTP 401: invalid key", ErrorKind.FATAL, status_code=401, hint="check the key"
            )
        ]
    )
    with pytest.raises(RunAborted, match="check the key"):
        await ModelClient(model, store, retry=FAST).generate([Message.user("q")])


async def test_concurrency_limit_holds_per_endpoint(store):
    model = ScriptedModel(delay=0.02)
    client = ModelClient(model, store, concurrency=3)
    await asyncio.gather(*(client.generate([Message.user(f"q{i}")]) for i in range(20)))
    assert model.max_in_flight == 3
    assert len(model.calls) == 20


async def test_concurrent_identical_calls_are_paid_once(store):
    model = ScriptedModel(delay=0.02)
    client = ModelClient(model, store)
    outs = await asyncio.gather(*(client.generate([Message.user("same")]) for _ in range(5)))
    assert len(model.calls) == 1
    assert {o.text for o in outs} == {"ok"}


class Verdict(BaseModel):
    winner: str
    confidence: float


async def test_structured_output_tolerates_fences_and_prose(store):
    model = ScriptedModel(
        steps=[
            ModelOutput(text='Sure! ```json\n{"winner": "A", "confidence": 0.9}\n``` hope it helps')
        ]
    )
    result = await ModelClient(model, store).generate_json([Message.user("judge")], Verdict)
    assert result.status is Status.OK and result.value == Verdict(winner="A", confidence=0.9)
    assert result.attempts == 1


async def test_structured_output_reasks_with_the_error_then_records_failure(store):
    model = ScriptedModel(
        steps=[
            ModelOutput(text="I think A wins."),
            ModelOutput(text='{"winner": "A"}'),
            ModelOutput(text='{"winner": "A", "confidence": "high"}'),
        ]
    )
    result = await ModelClient(model, store).generate_json(
        [Message.user("judge")], Verdict, max_reasks=2
    )
    assert result.value is None
    assert result.status is Status.UNPARSEABLE
    assert "confidence" in (result.reason or "")
    assert len(model.calls) == 3
    reask = model.calls[1][-1].text()
    assert "no JSON object" in reask and '"confidence"' in reask


async def test_structured_output_recovers_on_reask(store):
    model = ScriptedModel(
        steps=[ModelOutput(text="nope"), ModelOutput(text='{"winner": "B", "confidence": 1}')]
    )
    result = await ModelClient(model, store).generate_json([Message.user("j")], Verdict)
    assert result.value is not None and result.value.winner == "B" and result.attempts == 2


async def test_usage_and_cost_accounting(store):
    client = ModelClient(ScriptedModel(), store, price_per_mtok=(2.0, 10.0))
    await client.generate([Message.user("a")])
    await client.generate([Message.user("b")])
    await client.generate([Message.user("a")])  # cache hit: not paid again
    assert client.stats.input_tokens == 20 and client.stats.output_tokens == 4
    assert client.stats.cost_usd == pytest.approx((20 * 2 + 4 * 10) / 1e6)


async def test_concurrent_calls_share_lookups_and_commits_and_return_once_stored(store):
    """Group commit: 40 concurrent calls cost a handful of queries and transactions, and each
    call's cache row is committed before the call returns (a kill then loses no paid call)."""
    statements: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    client = ModelClient(ScriptedModel(), store, concurrency=40)

    async def call(i: int) -> None:
        await client.generate([Message.user(f"q{i}")])
        key = client.cache_key([Message.user(f"q{i}")], GenerationConfig())
        assert store.get_row(tables.cache, key) is not None

    await asyncio.gather(*(call(i) for i in range(40)))
    lookups = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT")]
    assert store.count(tables.cache) == 40
    # The 40 checks above are one SELECT each; the client's own lookups came in a few batches.
    assert len(inserts) <= 3 and len(lookups) - 40 <= 3


async def test_a_freed_slot_goes_to_the_waiting_call_before_the_previous_caller_resumes(store):
    """One slot, two calls: the second is sent once the first one's cache row is committed
    (a run aborting on it keeps the first answer) but before the first call's caller resumes:
    a caller's bookkeeping never holds back the next request."""
    model = ScriptedModel()
    client = ModelClient(model, store, concurrency=1)
    first_key = client.call_key([Message.user("first")])
    events: list[str] = []

    def answer(messages: list[Message]) -> ModelOutput:
        text = messages[-1].text()
        stored = store.get_row(tables.cache, first_key) is not None
        events.append(f"sent {text} ({'first stored' if stored else 'first not stored'})")
        return ModelOutput(text="ok")

    model.steps = [answer, answer]

    async def ask(text: str) -> None:
        await client.generate([Message.user(text)])
        events.append(f"{text} returned")

    await asyncio.gather(ask("first"), ask("second"))
    assert events == [
        "sent first (first not stored)",
        "sent second (first stored)",
        "first returned",
        "second returned",
    ]
