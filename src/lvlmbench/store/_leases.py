"""Leases: which process works on which unit, so runs sharing a store never pay twice.

A unit is the id of the row its work produces (a response id, a judgment id). Before asking a
model, a run claims a small batch of units in one transaction: a unit nobody holds, or whose
lease has expired, becomes its own; one another live owner holds is left alone, and one whose
row is already stored with a final status is reported done. The owner renews its leases while
it works and releases them once their rows are written, so a run that dies stops blocking the
others after at most one lease period. Plain ``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` in
one transaction: the same on SQLite and PostgreSQL, and atomic on both.
"""

from __future__ import annotations

import functools
import os
import socket
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass

from sqlalchemy import (
    Connection,
    Float,
    Insert,
    Table,
    delete,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store

__all__ = ["DEFAULT_LEASE_S", "Claim", "Leases", "new_owner"]


def _lease_setting() -> float:
    """LVLMBENCH_LEASE_S, or 60 s; an unusable value falls back to 60 (never zero or less)."""
    try:
        value = float(os.environ.get("LVLMBENCH_LEASE_S", "60"))
    except ValueError:
        return 60.0
    return value if value > 0 else 60.0


DEFAULT_LEASE_S = _lease_setting()
"""How long a claim lasts without renewal: how long a dead run's units wait for another run
(LVLMBENCH_LEASE_S sets it: short for tests, longer for workers whose renewals may be late)."""

_FINAL_EXCLUDED = "error"  # a unit whose stored row is an error is worth asking again


def new_owner() -> str:
    """An owner id unique across machines and processes: host, pid and a random suffix."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class Claim:
    """The outcome of one claim: units now ours, and units already finished by someone."""

    mine: frozenset[str]
    done: frozenset[str]


class Leases:
    """One owner's leases on units whose results land in ``table`` (keyed by ``id``, with a
    ``status`` column): responses or judgments."""

    def __init__(
        self,
        store: Store,
        table: Table,
        *,
        owner: str | None = None,
        lease_s: float = DEFAULT_LEASE_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if lease_s <= 0:
            raise ValueError(f"lease_s must be positive, got {lease_s}")
        self.store = store
        self.table = table
        self.owner = owner or new_owner()
        self.lease_s = lease_s
        self._clock = clock

    @classmethod
    def for_responses(
        cls, store: Store, *, owner: str | None = None, lease_s: float = DEFAULT_LEASE_S
    ) -> Leases:
        """Leases on response ids (the examinee runner's units)."""
        return cls(store, s.responses, owner=owner, lease_s=lease_s)

    @classmethod
    def for_judgments(
        cls, store: Store, *, owner: str | None = None, lease_s: float = DEFAULT_LEASE_S
    ) -> Leases:
        """Leases on judgment ids (the judges' units)."""
        return cls(store, s.judgments, owner=owner, lease_s=lease_s)

    def claim(self, units: Collection[str]) -> Claim:
        """Take every unit of ``units`` that is free or expired, in one transaction."""
        wanted = sorted(set(units))
        if not wanted:
            return Claim(frozenset(), frozenset())
        self.store.require_writable()
        table = self.table
        expires = self._clock() + self.lease_s
        rows = [{"unit": unit, "owner": self.owner, "expires_at": expires} for unit in wanted]
        finished = select(table.c.id).where(
            table.c.id.in_(wanted), table.c.status != _FINAL_EXCLUDED
        )
        with self.store.engine.begin() as conn:
            self._take(conn, rows)
            # Checked after taking, inside the write: a unit another run stored and released
            # between a check made first and the take would be taken and done again (its
            # answer then comes from the cache, or is paid twice when the cache row is late).
            done = {str(v) for v in conn.execute(finished).scalars()}
            held = select(s.leases.c.unit).where(
                s.leases.c.owner == self.owner, s.leases.c.unit.in_(wanted)
            )
            mine = {str(v) for v in conn.execute(held).scalars()} - done
            if done:
                conn.execute(
                    delete(s.leases).where(
                        s.leases.c.owner == self.owner, s.leases.c.unit.in_(sorted(done))
                    )
                )
        return Claim(frozenset(mine), frozenset(done))

    def _take(self, conn: Connection, rows: list[dict[str, object]]) -> None:
        dialect = conn.dialect.name
        if dialect in ("sqlite", "postgresql"):
            conn.execute(_take_statement(dialect, self.lease_s), rows)
            return
        now = self._clock()
        for row in rows:  # other databases: take over one by one, insert what is missing
            taken = conn.execute(
                update(s.leases)
                .where(s.leases.c.unit == row["unit"])
                .where(or_(s.leases.c.expires_at < now, s.leases.c.owner == self.owner))
                .values(owner=self.owner, expires_at=row["expires_at"])
            )
            if taken.rowcount == 0:
                try:
                    with conn.begin_nested():
                        conn.execute(s.leases.insert().values(**row))
                except IntegrityError:
                    pass  # another owner holds it

    def renew(self) -> None:
        """Extend every lease this owner holds by a full lease period."""
        with self.store.engine.begin() as conn:
            conn.execute(
                update(s.leases)
                .where(s.leases.c.owner == self.owner)
                .values(expires_at=self._clock() + self.lease_s)
            )

    def release(self, units: Collection[str] | None = None) -> None:
        """Give up ``units`` (all of this owner's leases when None)."""
        query = delete(s.leases).where(s.leases.c.owner == self.owner)
        if units is not None:
            if not units:
                return
            query = query.where(s.leases.c.unit.in_(sorted(set(units))))
        with self.store.engine.begin() as conn:
            conn.execute(query)


@functools.lru_cache(maxsize=8)
def _take_statement(dialect: str, lease_s: float) -> Insert:
    """Insert a lease, or take over the existing one when it has expired (or is ours already).

    ``excluded.expires_at - lease_s`` is the claim's "now": one statement for every row of an
    executemany, no per-row parameter beyond the row itself."""
    stmt: sqlite.Insert | postgresql.Insert = (
        sqlite.insert(s.leases) if dialect == "sqlite" else postgresql.insert(s.leases)
    )
    # A float rendered into the SQL: executemany allows no parameter beyond the row's own.
    now = stmt.excluded.expires_at - literal_column(repr(float(lease_s)), Float)
    return stmt.on_conflict_do_update(
        index_elements=["unit"],
        set_={"owner": stmt.excluded.owner, "expires_at": stmt.excluded.expires_at},
        where=or_(s.leases.c.expires_at < now, s.leases.c.owner == stmt.excluded.owner),
    )
