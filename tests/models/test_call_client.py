"""The one call client (models.CallClient) through both of its specialisations, chat
(ModelClient) and text-to-image (ImageClient): cache hit and miss, retries reported, the
per-endpoint limit, shared in-flight calls, errors as values, and keys that old caches match."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fakes import ScriptedModel
from pngs import solid_png

from lvlmbench.images import ImageClient, ImageOutput, ImageRequest
from lvlmbench.models import (
    CallClient,
    ErrorKind,
    ModelClient,
    ProviderError,
    RetryEvent,
    RetryPolicy,
)
from lvlmbench.store import Store
from lvlmbench.store import _schema as tables
from lvlmbench.types import GenerationConfig, Message, Status

FAST = RetryPolicy(base_delay=0.001, max_delay=0.01)
BUSY = ProviderError("HTTP 503: busy", ErrorKind.TRANSIENT, status_code=503)


@dataclass
class ScriptedPainter:
    """A TextToImage that replays scripted steps (errors) then paints; counts calls."""

    steps: list[ProviderError] = field(default_factory=list)
    spec: str = "fake/painter"
    endpoint: str = "fake://painter"
    delay: float = 0.0
    colour: tuple[int, int, int] = (200, 10, 10)
    calls: list[ImageRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "fake", "model": "painter"}

    async def generate(self, request: ImageRequest) -> ImageOutput:
        self.calls.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.steps:
                raise self.steps.pop(0)
            return ImageOutput(png=solid_png(self.colour, size=(4, 4)))
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        pass


@dataclass
class Kind:
    """One specialisation: how to build its fake model and client and make the n-th call."""

    name: str
    fake: Callable[..., Any]
    client: Callable[..., CallClient[Any, Any]]
    call: Callable[[Any, int], Awaitable[Any]]
    payload: Callable[[Any], object]
    """What the output carries (chat text, image bytes)."""


def _chat_call(client: Any, n: int) -> Awaitable[Any]:
    return client.generate([Message.user(f"question {n}")])


def _image_call(client: Any, n: int) -> Awaitable[Any]:
    return client.generate(ImageRequest(prompt=f"a red square {n}", width=4, height=4))


KINDS = [
    Kind("chat", ScriptedModel, ModelClient, _chat_call, lambda out: out.text),
    Kind("image", ScriptedPainter, ImageClient, _image_call, lambda out: out.png),
]


@pytest.fixture(params=KINDS, ids=[k.name for k in KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def store(tmp_path):
    s = Store.open(str(tmp_path / "s.db"))
    yield s
    s.close()


async def test_a_repeated_call_is_a_cache_hit_and_a_new_one_a_miss(kind, store, tmp_path):
    model = kind.fake()
    client = kind.client(model, store)
    first = await kind.call(client, 1)
    again = await kind.call(client, 1)
    other = await kind.call(client, 2)
    assert len(model.calls) == 2  # the repeat was not paid
    assert (first.cached, again.cached, other.cached) == (False, True, False)
    assert (first.attempts, again.attempts) == (1, 0)
    assert kind.payload(again) == kind.payload(first) and kind.payload(first)
    assert client.stats.cache_hits == 1 and client.stats.requests == 2
    await client.aclose()
    assert store.count(tables.cache) == 2
    # A new client on the reopened store (a re-run) pays nothing for the first call either.
    reopened = Store.open(str(tmp_path / "s.db"))
    fresh_model = kind.fake()
    replay = await kind.call(kind.client(fresh_model, reopened), 1)
    assert replay.cached and kind.payload(replay) == kind.payload(first)
    assert fresh_model.calls == []
    reopened.close()


async def test_cache_rows_say_their_kind_and_spec(kind, store):
    client = kind.client(kind.fake(), store)
    await kind.call(client, 1)
    await client.aclose()
    row = store.get_row(tables.cache, _only_key(store))
    assert row is not None
    assert (row["kind"], row["spec"]) == (kind.name, client.spec)


def _only_key(store: Store) -> str:
    keys = store.existing_keys(tables.cache, "key")
    assert len(keys) == 1
    return next(iter(keys))


async def test_retries_are_reported_to_the_hook_and_the_log(kind, store, caplog):
    model = kind.fake(steps=[BUSY, BUSY])
    events: list[RetryEvent] = []
    client = kind.client(model, store, retry=FAST, on_retry=events.append)
    with caplog.at_level(logging.INFO, logger="lvlmbench.models"):
        out = await kind.call(client, 1)
    assert out.status is Status.OK and out.attempts == 3
    assert [e.attempt for e in events] == [1, 2]
    assert all(e.reason == "HTTP 503" for e in events)
    assert client.stats.retries == 2 and client.stats.requests == 3
    lines = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert lines == [
        f"{client.spec}: retry 1/6 in {events[0].wait_s:.1f} s: HTTP 503",
        f"{client.spec}: retry 2/6 in {events[1].wait_s:.1f} s: HTTP 503",
    ]


async def test_a_failure_after_retries_is_a_value_never_cached(kind, store):
    model = kind.fake(steps=[BUSY] * 3)
    client = kind.client(model, store, retry=RetryPolicy(max_retries=2, base_delay=0.001))
    failed = await kind.call(client, 1)
    assert failed.status is Status.ERROR and "busy" in (failed.reason or "")
    assert client.stats.failures == 1
    assert store.count(tables.cache) == 0
    healed = await kind.call(client, 1)  # asked again, not replayed
    assert healed.status is Status.OK and not healed.cached


async def test_the_endpoint_limit_holds_across_clients(kind, store):
    model = kind.fake(delay=0.02)
    one = kind.client(model, store, concurrency=3)
    two = kind.client(model, store, concurrency=3)  # same endpoint, same limit: shared
    calls = [kind.call(c, 100 * j + i) for i in range(8) for j, c in enumerate((one, two))]
    await asyncio.gather(*calls)
    assert model.max_in_flight == 3


async def test_identical_calls_in_flight_are_paid_once(kind, store):
    model = kind.fake(delay=0.02)
    client = kind.client(model, store)
    outs = await asyncio.gather(*(kind.call(client, 7) for _ in range(4)))
    assert len(model.calls) == 1
    assert sorted(o.cached for o in outs) == [False, True, True, True]
    assert len({kind.payload(o) for o in outs}) == 1


async def test_a_deleted_image_file_is_rendered_again(store):
    model = ScriptedPainter()
    client = ImageClient(model, store)
    first = await _image_call(client, 1)
    await client.aclose()
    sha = hashlib.sha256(first.png).hexdigest()
    store.image_path(sha).unlink()
    again = await _image_call(ImageClient(model, store), 1)
    assert not again.cached and again.png == first.png and len(model.calls) == 2


def test_cache_keys_are_those_older_caches_hold() -> None:
    """Keys computed by the clients before they shared one implementation (commit 83f761e):
    a changed key would make every existing cache miss."""
    image = ImageClient(ScriptedPainter(), None)
    request = ImageRequest(prompt="a red square", seed=3, width=64, height=64)
    assert image.cache_key(request) == (
        "33095457daac2f20ea52f2fc8f12a299d147607b9071a9bb2ee018ed5aaad902"
    )
    chat = ModelClient(ScriptedModel(), None)
    assert chat.call_key([Message.user("hi")], GenerationConfig(max_tokens=5)) == (
        "662b6254b4b328acc7f982a520f3b5b22ff699c5ef8dac644f2ab66f34fe275a"
    )
