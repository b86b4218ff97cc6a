"""The store's call cache as the model client uses it: lookups and writes in batches.

Every lookup or write through SQLAlchemy costs ~0.25 ms of CPU, as much as the HTTP request it
saves or records; with 64 calls in flight the evaluation runner was bound by it. Concurrent
lookups are answered by one ``IN`` query and concurrent writes committed in one transaction
(group commit). A write still returns only once its row is committed, so a run killed after a
call returned never loses that paid call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from typing import Any

from lvlmbench._concurrency import Coalescer
from lvlmbench.store import Store, cached_outputs, put_cached_calls

__all__ = ["CallCache"]

# Batches gather what is submitted in one turn of the event loop (no timer): a write is on the
# critical path (the call holds its endpoint slot until its row is committed), and when the
# client is busy the turns grow longer and the batches bigger by themselves. Measured at 64
# calls in flight: ~14 rows a transaction, ~14 keys a lookup.
_MAX_BATCH = 256
# Prefetched lookups not yet used: a bound, so a caller that prefetches and never calls (a run
# aborted mid-batch) cannot grow it; past it the oldest answers are dropped (looked up again).
_MAX_KNOWN = 4096


class CallCache:
    """Cached outputs (JSON text) by cache key, read and written in batches."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lookups: Coalescer[str, str | None] = Coalescer(self._fetch, limit=_MAX_BATCH)
        self._writes: Coalescer[dict[str, Any], None] = Coalescer(self._commit, limit=_MAX_BATCH)
        # Lookups made ahead by prefetch, each used once by the get that follows; a row this
        # cache writes meanwhile replaces its key's prefetched absence (see put).
        self._known: dict[str, str | None] = {}

    def prefetch(self, keys: Collection[str]) -> None:
        """Look ``keys`` up now in one query, for the :meth:`get` calls about to come."""
        wanted = [key for key in keys if key not in self._known]
        if not wanted:
            return
        found = cached_outputs(self._store, wanted)
        for key in wanted:
            self._known[key] = found.get(key)
        while len(self._known) > _MAX_KNOWN:
            del self._known[next(iter(self._known))]

    async def get(self, key: str) -> str | None:
        """The cached output under ``key``, or None."""
        if key in self._known:
            return self._known.pop(key)
        return await self._lookups.submit(key)

    def put(
        self, row: dict[str, Any], then: Callable[[], None] | None = None
    ) -> asyncio.Future[None]:
        """Queue one cache row for the next group commit; the future is done once the row is
        committed. ``then`` is called right after the commit (or its failure), before any
        writer resumes. A key already present is kept."""
        # A prefetched absence is out of date now: an identical call later in the batch must
        # find this row, not pay again.
        self._known.pop(row["key"], None)
        return self._writes.enqueue(row, then)

    def flush(self) -> None:
        """Commit writes still waiting for their batch (their callers were cancelled)."""
        self._writes.flush()

    def _fetch(self, keys: list[str]) -> list[str | None]:
        found = cached_outputs(self._store, keys)
        return [found.get(key) for key in keys]

    def _commit(self, rows: list[dict[str, Any]]) -> list[None]:
        put_cached_calls(self._store, rows)
        return [None] * len(rows)
