"""The shared worker pool and batch writer."""

from __future__ import annotations

import asyncio

import pytest

from lvlmbench._concurrency import BatchWriter, drain


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
