import random

import pytest
from pngs import solid_png

from lvlmbench.models import ErrorKind, ProviderError, RetryPolicy, chat_cache_key
from lvlmbench.models._http import parse_retry_after
from lvlmbench.models._policy import CallStats, aborts_run, cache_key, call_with_retries
from lvlmbench.types import GenerationConfig, ImagePart, Message

IDENTITY = {"provider": "openai", "model": "m", "base_url": "http://x/v1"}


def test_cache_key_hashes_image_bytes_not_paths(tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    a.write_bytes(solid_png("red", size=(4, 4)))
    b.write_bytes(solid_png("red", size=(4, 4)))
    config = GenerationConfig()
    key_a = chat_cache_key(IDENTITY, [Message.user(ImagePart.from_path(a), "q")], config)
    key_b = chat_cache_key(IDENTITY, [Message.user(ImagePart.from_path(b), "q")], config)
    key_mem = chat_cache_key(
        IDENTITY, [Message.user(ImagePart.from_bytes(solid_png("red", size=(4, 4))), "q")], config
    )
    assert key_a == key_b == key_mem
    b.write_bytes(solid_png("blue", size=(4, 4)))
    key_blue = chat_cache_key(IDENTITY, [Message.user(ImagePart.from_path(b), "q")], config)
    assert key_blue != key_a


def test_cache_key_changes_with_every_output_parameter():
    msgs = [Message.user("hello")]
    base = chat_cache_key(IDENTITY, msgs, GenerationConfig())
    variants = [
        GenerationConfig(temperature=0.7),
        GenerationConfig(max_tokens=7),
        GenerationConfig(top_p=0.9),
        GenerationConfig(seed=3),
        GenerationConfig(stop=("x",)),
        GenerationConfig(json_schema={"type": "object"}),
    ]
    keys = {chat_cache_key(IDENTITY, msgs, v) for v in variants}
    assert base not in keys and len(keys) == len(variants)
    assert chat_cache_key({**IDENTITY, "model": "other"}, msgs, GenerationConfig()) != base
    assert chat_cache_key(IDENTITY, [Message.user("hello!")], GenerationConfig()) != base


def test_every_epoch_is_its_own_entry_even_greedy():
    # --epochs K asks for K answers: at T = 0 too, since providers are not deterministic there.
    msgs = [Message.user("q")]
    greedy = [chat_cache_key(IDENTITY, msgs, GenerationConfig(epoch=e)) for e in (0, 1, 2)]
    sampled = [
        chat_cache_key(IDENTITY, msgs, GenerationConfig(temperature=1.0, epoch=e)) for e in (0, 1)
    ]
    assert len(set(greedy)) == 3
    assert sampled[0] != sampled[1]


def test_provider_params_are_part_of_the_key_and_unset_keeps_old_keys():
    msgs = [Message.user("q")]
    plain = chat_cache_key(IDENTITY, msgs, GenerationConfig())
    high = GenerationConfig(params={"reasoning_effort": "high"})
    low = GenerationConfig(params={"reasoning_effort": "low"})
    assert chat_cache_key(IDENTITY, msgs, high) != plain
    assert chat_cache_key(IDENTITY, msgs, high) != chat_cache_key(IDENTITY, msgs, low)
    # A key made before `params` existed: the same dump without the field.
    legacy = cache_key(
        "chat",
        IDENTITY,
        {
            "messages": [{"role": "user", "content": [{"text": "q"}]}],
            "config": GenerationConfig().model_dump(mode="json", exclude={"epoch", "params"}),
        },
    )
    assert plain == legacy


def test_cache_key_ignores_concurrency_and_timeouts():
    from lvlmbench.models.openai import OpenAIChatModel

    fast = OpenAIChatModel("m", base_url="http://x/v1", timeout=1)
    slow = OpenAIChatModel("m", base_url="http://x/v1", timeout=600)
    assert fast.cache_identity() == slow.cache_identity()


def test_retry_after_is_honoured_exactly_or_later():
    policy = RetryPolicy(jitter=0.25)
    rng = random.Random(1)
    for _ in range(100):
        assert 7.0 <= policy.delay(1, 7.0, rng) <= 7.25


def test_backoff_grows_exponentially_with_bounded_jitter():
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0, jitter=0.5)
    rng = random.Random(0)
    delays = [policy.delay(a, None, rng) for a in range(1, 7)]
    for attempt, delay in enumerate(delays, start=1):
        base = min(10.0, 2 ** (attempt - 1))
        assert base <= delay <= base * 1.5
    assert delays[-1] <= 15.0


def test_parse_retry_after_seconds_and_dates():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


async def test_call_with_retries_retries_transient_only():
    waits: list[float] = []

    async def fake_sleep(s: float) -> None:
        waits.append(s)

    attempts = {"n": 0}

    async def flaky() -> str:
        attempts["n"] += 1
        if attempts["n"] < 3:
            raise ProviderError("busy", ErrorKind.TRANSIENT, status_code=429, retry_after=2.0)
        return "done"

    stats = CallStats()
    result, n = await call_with_retries(
        flaky, RetryPolicy(), stats, random.Random(0), sleep=fake_sleep
    )
    assert (result, n) == ("done", 3)
    assert len(waits) == 2 and all(w >= 2.0 for w in waits)
    assert stats.retries == 2 and stats.requests == 3

    async def fatal() -> str:
        raise ProviderError("bad key", ErrorKind.FATAL, status_code=401)

    with pytest.raises(ProviderError):
        await call_with_retries(
            fatal, RetryPolicy(), CallStats(), random.Random(0), sleep=fake_sleep
        )
    assert len(waits) == 2  # no wait for a fatal error


async def test_retry_cap_is_respected():
    calls = {"n": 0}

    async def always_busy() -> str:
        calls["n"] += 1
        raise ProviderError("503", ErrorKind.TRANSIENT, status_code=503)

    async def no_sleep(_: float) -> None:
        return None

    with pytest.raises(ProviderError):
        await call_with_retries(
            always_busy, RetryPolicy(max_retries=3), CallStats(), random.Random(0), sleep=no_sleep
        )
    assert calls["n"] == 4


@pytest.mark.parametrize(
    ("error", "aborts"),
    [
        (ProviderError("x", ErrorKind.FATAL, status_code=401), True),
        (ProviderError("x", ErrorKind.FATAL, status_code=404), True),
        (ProviderError("x", ErrorKind.FATAL, status_code=400), False),
        (ProviderError("x", ErrorKind.TRANSIENT, status_code=503), False),
        # A refused connection on one call fails that call: the preflight and the circuit
        # breaker decide when the endpoint itself is down.
        (ProviderError("m: cannot reach http://h", ErrorKind.TRANSIENT), False),
    ],
)
def test_which_failures_abort_a_run(error, aborts):
    assert aborts_run(error) is aborts
