"""Schema 2 -> 3 (leases record their owner process): a store whose leases table has no host,
pid or start columns opens with them added and its leases kept; those leases name their owner
from its id and wait for their expiry, as every lease did before."""

from __future__ import annotations

import os
import time

from sqlalchemy import inspect

from lvlmbench.store import SCHEMA_VERSION, Leases, Store
from lvlmbench.store import _schema as tables

# The leases table as schema 2 created it.
V2_LEASES = [
    "DROP TABLE leases",
    "CREATE TABLE leases (unit VARCHAR(64) NOT NULL, owner VARCHAR(128) NOT NULL, "
    "expires_at FLOAT NOT NULL, PRIMARY KEY (unit))",
    "CREATE INDEX ix_leases_owner ON leases (owner)",
    "UPDATE meta SET value = '2' WHERE key = 'schema'",
]


def _v2_store(url: str, expires_at: float) -> None:
    store = Store.open(url)
    with store.engine.begin() as conn:
        for statement in V2_LEASES:
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql(
            "INSERT INTO leases (unit, owner, expires_at) VALUES "
            f"('u1', 'oldhost:4242:abc123', {expires_at!r})"
        )
    store.close()


def test_a_schema_2_store_gains_the_owner_columns_and_keeps_its_leases(store_url: str) -> None:
    expires_at = time.time() + 30
    _v2_store(store_url, expires_at)
    store = Store.open(store_url)
    try:
        assert store.schema_version() == SCHEMA_VERSION >= 3
        with store.engine.connect() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("leases")}
        assert {"host", "pid", "started"} <= columns
        assert store.count(tables.leases, owner="oldhost:4242:abc123") == 1
        claim = Leases(store, tables.responses, owner="new").claim(["u1", "u2"])
        assert claim.mine == {"u2"}
        [holder] = claim.held
        assert (holder.label, holder.process, holder.expires_at) == (
            "oldhost:4242",
            None,
            expires_at,
        )
        # The new lease records its owner process.
        with store.engine.connect() as conn:
            row = conn.execute(tables.leases.select().where(tables.leases.c.unit == "u2")).one()
        assert row.pid == os.getpid() and row.host and row.started is not None
    finally:
        store.close()
    # Opened again: nothing to migrate, nothing added twice.
    Store.open(store_url).close()
