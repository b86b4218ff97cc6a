"""Use cases are synchronous functions over async work; this runs that work from any caller."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, also under a running loop (a notebook
    cell runs inside one, where asyncio.run alone would refuse): there on a private loop in a
    worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()
