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


async def test_a_call_waiting_for_the_slot_of_a_fatal_call_is_never_sent(store):
    # One slot: the second call waits behind the first, whose key turns out revoked. When the
    # first frees its slot the run is aborting, so the second must stop before its request.
    revoked = ProviderError("HTTP 401: invalid key", ErrorKind.FATAL, status_code=401)
    model = ScriptedModel(steps=[revoked], delay=0.01)
    client = ModelClient(model, store, retry=FAST, concurrency=1)
    first = asyncio.ensure_future(client.generate([Message.user("q0")]))
    second = asyncio.ensure_future(client.generate([Message.user("q1")]))
    outcomes = await asyncio.gather(first, second, return_exceptions=True)
    assert all(isinstance(o, RunAborted) and "invalid key" in str(o) for o in outcomes)
    assert [m[-1].text() for m in model.calls] == ["q0"]
    assert client.stats.requests == 1


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


def _cache_lookups(store: Store) -> list[str]:
    """Every SELECT on the call cache from now on (the list grows as statements run)."""
    seen: list[str] = []

    def record(*args: object) -> None:
        statement = str(args[2])
        if statement.lstrip().upper().startswith("SELECT") and "FROM cache" in statement:
            seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", record)
    return seen


async def test_prefetched_calls_make_no_lookup_of_their_own(store):
    client = ModelClient(ScriptedModel(), store)
    await client.generate([Message.user("old")])  # cached before the batch
    calls = [client.prepare_call([Message.user(q)]) for q in ("old", "new1", "new2")]
    lookups = _cache_lookups(store)
    client.prefetch([c.key for c in calls])
    assert len(lookups) == 1
    outputs = [await client.generate_prepared(c) for c in calls]
    assert len(lookups) == 1  # each call used the prefetched answer or absence
    assert [o.cached for o, _ in outputs] == [True, False, False]
    assert [k for _, k in outputs] == [c.key for c in calls]
    # Used once: the same call again is looked up (and now found) as usual.
    again, _ = await client.generate_prepared(calls[1])
    assert again.cached and len(lookups) == 2


async def test_a_prefetched_absence_gives_way_to_the_row_written_since(store):
    # Two identical calls in one prefetched batch: the first pays and stores its answer, the
    # second must find that row rather than trust the absence seen before either ran.
    model = ScriptedModel()
    client = ModelClient(model, store)
    first, second = (client.prepare_call([Message.user("same")]) for _ in range(2))
    client.prefetch([first.key, second.key])
    await client.generate_prepared(first)
    output, _ = await client.generate_prepared(second)
    assert output.cached and len(model.calls) == 1


async def test_prepared_call_applies_the_spec_settings_like_generate(store):
    model = ScriptedModel()
    client = ModelClient(model, store)
    client.settings = client.settings.from_options({"temperature": "0.3", "system": "Be terse."})
    call = client.prepare_call([Message.user("q")], GenerationConfig(max_tokens=9))
    assert call.config.temperature == 0.3 and call.config.max_tokens == 9
    assert call.messages[0].role == "system" and call.messages[-1].text() == "q"
    _, key = await client.generate_prepared(call)
    # The same call through generate is the same cache entry: replayed, not paid again.
    again = await client.generate([Message.user("q")], GenerationConfig(max_tokens=9))
    assert key == call.key and again.cached and len(model.calls) == 1
    assert model.calls[0] == call.messages
