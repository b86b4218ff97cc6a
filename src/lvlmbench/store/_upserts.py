"""How the store writes rows: keyed by primary key, a key already there kept (or replaced), in
one statement on SQLite and PostgreSQL and row by row elsewhere; a write to a table that
changes a figure raises the store's revision in the same transaction."""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from sqlalchemy import Connection, Insert, Table, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from lvlmbench.store import _schema as s

__all__ = ["insert_rows", "upsert"]

# Tables whose writes bump the store's revision (an exclusion changes the human figures; leases,
# the call cache, image rows and the web app's annotators change no figure, and bumping for
# them would make every call of a run contend for one row).
_REVISED = frozenset({"benchmarks", "items", "responses", "judgments", "artifacts", "exclusions"})
_BUMP = s.revision.update().where(s.revision.c.id == 1).values(value=s.revision.c.value + 1)


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]], replace: bool) -> None:
    """Insert ``rows`` (each with the same columns) in ``conn``'s transaction; existing keys are
    kept, or replaced when ``replace``."""
    if not rows:
        return
    dialect = conn.dialect.name
    if dialect in ("sqlite", "postgresql"):
        conn.execute(upsert(table, dialect, replace, tuple(rows[0])), rows)
    else:
        _insert_portable(conn, table, rows, replace)
    if table.name in _REVISED:
        # Last, so a PostgreSQL writer holds the counter row's lock only until commit.
        conn.execute(_BUMP)


@functools.lru_cache(maxsize=64)
def upsert(table: Table, dialect: str, replace: bool, columns: tuple[str, ...]) -> Insert:
    """INSERT ... ON CONFLICT for ``table``, built once: building and hashing the statement
    again for every batch cost a quarter of a small batch's write."""
    keys = [c.name for c in table.primary_key.columns]
    stmt: sqlite.Insert | postgresql.Insert = (
        sqlite.insert(table) if dialect == "sqlite" else postgresql.insert(table)
    )
    if replace:
        updates = {c: stmt.excluded[c] for c in columns if c not in keys}
        return stmt.on_conflict_do_update(index_elements=keys, set_=updates)
    return stmt.on_conflict_do_nothing(index_elements=keys)


def _insert_portable(
    conn: Connection, table: Table, rows: list[dict[str, Any]], replace: bool
) -> None:
    keys = [c.name for c in table.primary_key.columns]
    for row in rows:
        where = [table.c[k] == row[k] for k in keys]
        exists = conn.execute(select(func.count()).select_from(table).where(*where)).scalar()
        if exists and replace:
            conn.execute(table.update().where(*where).values(**row))
        elif not exists:
            with contextlib.suppress(IntegrityError):
                conn.execute(insert(table).values(**row))
