"""A value made at most once while it stays among the most recently used: what a process keeps
of the work it would otherwise redo (an image's pixel statistics, an item's parsed record)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Recent"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """The values of the last ``size`` keys asked for (least recently used dropped first).
    Safe across threads; a value is made outside the lock, so two threads asking for the same
    missing key at once may both make it (the same value: the first one kept is replaced)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept under ``key``, or ``make()``'s, kept from now on."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            self._values[key] = value
            if len(self._values) > self._size:
                self._values.popitem(last=False)
        return value
