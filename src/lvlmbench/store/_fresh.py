"""Stores a failing step created: a new SQLite file that holds nothing is removed again, so the
next command does not mistake it for a real store (and ``ls`` does not list an empty one)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from lvlmbench.store._opening import normalise_url
from lvlmbench.store._store import Store

__all__ = ["discard_if_empty", "sqlite_store_path"]


def sqlite_store_path(url: str | None) -> Path | None:
    """The file a store URL (or ``--store`` path, or the default) names when it is SQLite on
    disk; None for other databases and in-memory ones."""
    full = normalise_url(url)
    prefix = "sqlite:///"
    if not full.startswith(prefix):
        return None
    database = full.removeprefix(prefix).partition("?")[0]
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def discard_if_empty(store: Store, path: Path) -> bool:
    """Close ``store`` and, when no table holds a row (the schema marker aside), delete its
    file with the WAL and SHM files beside it. Call it only for a file this process created:
    a store that existed before is the user's, empty or not. Returns whether it was deleted."""
    try:
        empty = not any(store.info()["tables"].values())
    except (SQLAlchemyError, OSError):
        empty = False  # a file that cannot be read is not ours to judge
    store.close()
    if empty:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    return empty
