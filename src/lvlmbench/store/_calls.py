"""The call cache's rows: model outputs stored under their cache key.

The cache is the model client's concern (what a key is, when a row is written, batching), but
its table is the store's: the client reads and writes it only through these queries.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from sqlalchemy import bindparam, select

from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store

__all__ = ["CachedCall", "cached_call", "cached_outputs", "put_cached_calls"]

# Built once: a lookup is on the hot path of every call (an expanding IN takes any key count).
_LOOKUP = select(s.cache.c.key, s.cache.c.output).where(
    s.cache.c.key.in_(bindparam("keys", expanding=True))
)


class CachedCall(NamedTuple):
    """One cached call: the output as JSON text and when it was stored."""

    output: str
    created_at: float


def cached_outputs(store: Store, keys: Collection[str]) -> dict[str, str]:
    """key → cached output (JSON text) for the ``keys`` the cache holds, in one query."""
    if not keys:
        return {}
    with store.engine.connect() as conn:
        rows = conn.execute(_LOOKUP, {"keys": sorted(set(keys))}).all()
    return {str(key): str(output) for key, output in rows}


def cached_call(store: Store, key: str) -> CachedCall | None:
    """The call cached under ``key`` with its time, or None."""
    row = store.get_row(s.cache, key)
    if row is None:
        return None
    return CachedCall(str(row["output"]), float(row["created_at"]))


def put_cached_calls(store: Store, rows: Sequence[Mapping[str, Any]]) -> None:
    """Store cache rows (key, kind, spec, output, input_tokens, output_tokens, created_at) in
    one transaction; a key already present keeps its row.

    On SQLite the rows go straight through the driver: this is the commit every answered call
    waits for, a few rows at a time, and SQLAlchemy's statement machinery around it cost as much
    as SQLite's own work (~8 % of the client's CPU at 64 calls in flight). The cache bumps no
    store revision, so nothing of the generic upsert is skipped."""
    if store.engine.dialect.name != "sqlite" or not rows:
        store.put_rows(s.cache, rows, batch=max(1, len(rows)))
        return
    store.require_writable()
    values = [tuple(row[c] for c in _COLUMNS) for row in rows]
    connection = store.engine.raw_connection()
    try:
        connection.cursor().executemany(_INSERT_SQLITE, values)
        connection.commit()
    finally:
        connection.close()


_COLUMNS = tuple(column.name for column in s.cache.columns)  # from the schema: never drifts
_INSERT_SQLITE = (
    f"INSERT INTO {s.cache.name} ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_COLUMNS))}) ON CONFLICT (key) DO NOTHING"
)
