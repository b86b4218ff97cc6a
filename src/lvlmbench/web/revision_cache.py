"""Figures computed from the store, kept for as long as the store has not changed.

A leaderboard is computed from every response of its benchmark (seconds at 100k responses),
yet between two page views the store usually holds the same rows. Each value is kept under the
store's revision (a counter every write of records raises, in the writing process or any
other, see :meth:`lvlmbench.store.Store.revision`), read *before* the value is computed: a
write that lands during the computation raises the revision, so the next view computes again
and no view is ever served figures older than the rows it could read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from lvlmbench.store import Store

__all__ = ["RevisionCache"]

T = TypeVar("T")


class RevisionCache:
    """Values by (key, store revision); only the newest revision of a key is kept, and at most
    ``size`` keys (least recently used dropped first)."""

    def __init__(self, store: Store, size: int = 32) -> None:
        self._store = store
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[int, object]] = OrderedDict()
        self._lock = threading.Lock()  # sync routes run on a thread pool
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value under ``key`` at the store's current revision, computed when missing.
        Nothing is kept for a store without a revision (an old read-only file)."""
        revision = self._store.revision()
        if revision is None:
            return compute()
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] == revision:
                self._entries.move_to_end(key)
                self.hits += 1
                return cast(T, found[1])
            self.misses += 1
        # Computed outside the lock: a slow leaderboard must not hold up other pages. Two
        # concurrent first views may both compute; either result is right for ``revision``.
        value = compute()
        with self._lock:
            current = self._entries.get(key)
            if current is None or current[0] <= revision:
                self._entries[key] = (revision, value)
                self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value
