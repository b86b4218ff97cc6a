"""Upgrades from one schema version to the next (see ``MIGRATIONS`` in the store)."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import Connection, Engine, insert, inspect, select

from lvlmbench.store import _schema as s

__all__ = ["LEGACY_IDENTITIES_KEY", "MIGRATIONS", "legacy_identities"]

LEGACY_IDENTITIES_KEY = "legacy_identities"
"""meta key: the model and judge names stored before identities carried their endpoint."""


def _v1_to_v2(conn: Connection) -> None:
    """Schema 2 stores a model under its identity (``provider/name`` plus the output-changing
    options not at their default, e.g. ``openai/m?base_url=http://host:8001/v1``). No row changes:
    a model on its default endpoint keeps its plain name, which is what schema 1 stored, so its
    rows keep matching. What cannot be known is which schema-1 rows came from a non-default
    endpoint: they were stored under the bare name too. Their names are recorded under
    ``legacy_identities`` so `store info` can say so; re-running such a spec now stores it under
    its full identity and costs no calls (the call cache was always keyed by the endpoint)."""
    names = {
        *conn.execute(select(s.responses.c.model).distinct()).scalars(),
        *conn.execute(select(s.judgments.c.judge).distinct()).scalars(),
    }
    conn.execute(insert(s.meta).values(key=LEGACY_IDENTITIES_KEY, value=json.dumps(sorted(names))))


def _v2_to_v3(conn: Connection) -> None:
    """Schema 3 records each lease's owner process (host, pid, start). The columns are added
    to a leases table made by schema 2; one created just now already has them. Leases taken
    before keep nulls there: their owners cannot be looked up, so they expire as before."""
    present = {column["name"] for column in inspect(conn).get_columns(s.leases.name)}
    for column in (s.leases.c.host, s.leases.c.pid, s.leases.c.started):
        if column.name not in present:
            kind = column.type.compile(dialect=conn.dialect)
            conn.exec_driver_sql(f"ALTER TABLE {s.leases.name} ADD COLUMN {column.name} {kind}")


def _v3_to_v4(conn: Connection) -> None:
    """Schema 4 records the epoch each judgment judges (``judge --epochs K``). The column is
    added with 0 for every row already stored: before it, a judge judged epoch 0's answers
    only (and a row's JSON, which has no epoch, reads back as epoch 0). A judgments table
    created just now already has it. No row's id or data changes."""
    present = {column["name"] for column in inspect(conn).get_columns(s.judgments.name)}
    if s.judgments.c.epoch.name not in present:
        conn.exec_driver_sql(
            f"ALTER TABLE {s.judgments.name} ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0"
        )


# version -> function that upgrades a connection from that version to the next one.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def legacy_identities(engine: Engine) -> list[str]:
    """Model and judge names stored by schema 1 (endpoint not recorded); [] for a store made
    by schema 2."""
    with engine.connect() as conn:
        found = conn.execute(
            select(s.meta.c.value).where(s.meta.c.key == LEGACY_IDENTITIES_KEY)
        ).scalar()
    return [str(name) for name in json.loads(found)] if found else []
