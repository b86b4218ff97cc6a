"""The shared worker pool and batch writer."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from lvlmbench._concurrency import BatchWriter, Coalescer, collect_rarely, drain


async def test_every_job_runs_once_with_at_most_n_at_a_time() -> None:
    seen: list[int] = []
    running = peak = 0

    async def handle(job: int) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001)
        seen.append(job)
        running -= 1

    await drain(range(50), handle, workers=4)
    assert sorted(seen) == list(range(50)) and peak == 4


async def test_the_first_failure_stops_the_rest_and_is_raised_as_itself() -> None:
    started: list[int] = []

    async def handle(job: int) -> None:
        started.append(job)
        if job == 3:
            raise KeyError("job 3")
        await asyncio.sleep(0.01)

    with pytest.raises(KeyError, match="job 3"):
        await drain(range(100), handle, workers=2)
    assert len(started) < 100


def test_batches_are_written_by_count_and_on_flush() -> None:
    batches: list[list[int]] = []
    writer = BatchWriter(batches.append, every=3, seconds=3600)
    for record in range(7):
        writer.add(record)
    assert batches == [[0, 1, 2], [3, 4, 5]]
    writer.flush()
    writer.flush()  # nothing left: no empty batch
    assert batches == [[0, 1, 2], [3, 4, 5], [6]]


async def test_coalescer_runs_concurrent_submissions_as_one_batch() -> None:
    batches: list[list[int]] = []

    def square(items: list[int]) -> list[int]:
        batches.append(items)
        return [i * i for i in items]

    batcher: Coalescer[int, int] = Coalescer(square)
    assert await asyncio.gather(*(batcher.submit(i) for i in range(5))) == [0, 1, 4, 9, 16]
    assert batches == [[0, 1, 2, 3, 4]]
    assert await batcher.submit(7) == 49 and batches[-1] == [7]


async def test_coalescer_starts_a_batch_when_full_and_shares_a_failure() -> None:
    batches: list[list[int]] = []

    def fail_on_three(items: list[int]) -> list[None]:
        batches.append(items)
        if 3 in items:
            raise ValueError("three")
        return [None] * len(items)

    batcher: Coalescer[int, None] = Coalescer(fail_on_three, window=60.0, limit=2)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(4)), return_exceptions=True)
    assert batches == [[0, 1], [2, 3]]  # never waited out the window: both batches were full
    assert results[:2] == [None, None]
    assert all(isinstance(r, ValueError) for r in results[2:])


async def test_coalescer_handles_the_item_of_a_cancelled_caller() -> None:
    handled: list[str] = []

    def record(items: list[str]) -> list[None]:
        handled.extend(items)
        return [None] * len(items)

    batcher: Coalescer[str, None] = Coalescer(record, window=0.01)
    waiting = asyncio.create_task(batcher.submit("paid call"))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.sleep(0.05)
    assert handled == ["paid call"]
    batcher.flush()  # nothing left: no second write
    assert handled == ["paid call"]


async def test_coalescer_calls_then_after_its_batch_and_before_any_submitter_wakes() -> None:
    """``then`` (the call client frees its endpoint slot there) runs right after the batch,
    whether it failed or not, so what it wakes runs before the submitters resume."""
    events: list[str] = []

    def run(items: list[int]) -> list[int]:
        events.append(f"ran {items}")
        if 0 in items:
            raise ValueError("zero")
        return items

    batcher: Coalescer[int, int] = Coalescer(run)

    async def submit(i: int) -> None:
        try:
            await batcher.enqueue(i, then=lambda: events.append(f"then {i}"))
        except ValueError:
            events.append(f"failed {i}")
        else:
            events.append(f"woke {i}")

    await asyncio.gather(submit(1), submit(2))
    await submit(0)
    assert events == [
        "ran [1, 2]",
        "then 1",
        "then 2",
        "woke 1",
        "woke 2",
        "ran [0]",
        "then 0",
        "failed 0",
    ]


async def test_a_run_keeps_the_collector_out_of_its_way_and_restores_it() -> None:
    before = gc.get_threshold()
    seen: dict[str, object] = {}

    async def first(job: int) -> None:
        await asyncio.sleep(0.01)
        seen["threshold"] = gc.get_threshold()
        seen["frozen"] = gc.get_freeze_count()

    async def second(job: int) -> None:
        await asyncio.sleep(0.03)  # outlives the first run

    await asyncio.gather(drain([1], first, 1), drain([1], second, 1))
    assert seen["threshold"] == (50_000, 20, 100)
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 0  # what existed is frozen
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


async def test_a_failed_run_restores_the_collector_too() -> None:
    before = gc.get_threshold()

    async def boom(job: int) -> None:
        raise ValueError("no")

    with pytest.raises(ValueError):
        await drain([1, 2], boom, 2)
    with pytest.raises(KeyError), collect_rarely():
        raise KeyError("also")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_runs_on_two_threads_restore_the_collector_once_both_ended() -> None:
    before = gc.get_threshold()
    both_started = threading.Barrier(2)
    during: list[tuple[int, int, int]] = []
    threads: list[threading.Thread] = []

    async def hold(job: int) -> None:
        await asyncio.to_thread(both_started.wait, 5)
        if job == 2:  # the other thread's run has ended: this one still runs relaxed
            await asyncio.to_thread(threads[0].join, 5)
            during.append(gc.get_threshold())

    for job in (1, 2):
        threads.append(threading.Thread(target=asyncio.run, args=(drain([job], hold, 1),)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not threads[0].is_alive() and during == [(50_000, 20, 100)]
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
