"""``metered``: the requests one piece of work sent, when several share a client at once (what a
generated unit cost): retries count, cache hits and shared in-flight calls do not, tasks started
inside a meter count into it, other tasks' requests do not, and enclosing meters see it all."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes import ScriptedModel

from lvlmbench.models import ErrorKind, ModelClient, ProviderError, RetryPolicy, metered
from lvlmbench.store import Store
from lvlmbench.types import GenerationConfig, Message

CONFIG = GenerationConfig(max_tokens=8)


def _ask(text: str) -> list[Message]:
    return [Message.user(text)]


def test_each_task_counts_its_own_requests(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    model = ScriptedModel(delay=0.01)
    client = ModelClient(model, store, retry=RetryPolicy(max_retries=2, base_delay=0.0))

    async def unit(texts: list[str]) -> int:
        with metered() as meter:
            await asyncio.gather(*(client.generate(_ask(t), CONFIG) for t in texts))
            return meter.requests

    async def run() -> tuple[list[int], int]:
        with metered() as outer:
            counts = await asyncio.gather(unit(["a", "b"]), unit(["c"]), unit(["d", "e", "f"]))
        return list(counts), outer.requests

    counts, total = asyncio.run(run())
    assert counts == [2, 1, 3] and total == 6
    # Asked again: every answer is cached, so nothing is sent and nothing is counted.
    assert asyncio.run(run()) == ([0, 0, 0], 0)
    store.close()


def test_retries_count_and_a_shared_call_counts_once(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    busy = ProviderError("busy", ErrorKind.TRANSIENT, status_code=503)
    model = ScriptedModel(steps=[busy], delay=0.01)
    client = ModelClient(model, store, retry=RetryPolicy(max_retries=2, base_delay=0.0))

    async def run() -> tuple[int, int]:
        with metered() as first:
            task = asyncio.create_task(client.generate(_ask("same"), CONFIG))
            await asyncio.sleep(0)
            with metered() as second:  # the identical call already in flight is awaited
                await client.generate(_ask("same"), CONFIG)
            await task
        return first.requests, second.requests

    first, second = asyncio.run(run())
    assert (first, second) == (2, 0) and client.stats.requests == 2
    store.close()


def test_a_meter_holds_the_tokens_of_the_replies_it_paid_for(tmp_path: Path) -> None:
    """What a money cap prices a unit at: the tokens of every reply received by a request
    (ScriptedModel: 10 in + 2 out each); cached replies add none."""
    store = Store.open(str(tmp_path / "s.db"))
    client = ModelClient(ScriptedModel(), store)

    async def run(texts: list[str]) -> tuple[int, int, int, int]:
        with metered() as meter:
            for text in texts:
                await client.generate(_ask(text), CONFIG)
        return meter.requests, meter.input_tokens, meter.output_tokens, meter.images

    assert asyncio.run(run(["a", "b", "c"])) == (3, 30, 6, 0)
    assert asyncio.run(run(["a", "d"])) == (1, 10, 2, 0)  # "a" is cached
    store.close()
