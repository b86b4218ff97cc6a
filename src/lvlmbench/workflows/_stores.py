"""The store a Python caller hands a use case: an open Store, a URL or SQLite path, or None."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from lvlmbench.store import Store, discard_if_empty, sqlite_store_path

__all__ = ["StoreLike", "opened_store"]

StoreLike = Store | str | Path | None
"""An open Store (used as it is), a store URL or SQLite file, or None (``./lvlmbench.db`` or
``$LVLMBENCH_STORE``)."""


@contextlib.contextmanager
def opened_store(store: StoreLike) -> Iterator[Store]:
    """The store to work on: a Store as given (left open), else opened here and closed after;
    a SQLite file this call created is removed again when the call stored nothing in it (a
    call that failed leaves no empty store behind)."""
    if isinstance(store, Store):
        yield store
        return
    url = None if store is None else str(store)
    path = sqlite_store_path(url)
    created = path is not None and not path.exists()
    opened = Store.open(url)
    try:
        yield opened
    finally:
        if created and path is not None:
            discard_if_empty(opened, path)
        else:
            opened.close()
