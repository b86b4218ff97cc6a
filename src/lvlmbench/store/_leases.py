"""Leases: which process works on which unit, so runs sharing a store never pay twice.

A unit is the id of the row its work produces (a response id, a judgment id). Before asking a
model, a run claims a small batch of units in one transaction: a unit nobody holds, or whose
lease has expired, becomes its own; one another live owner holds is left alone, and one whose
row is already stored with a final status is reported done. The owner renews its leases while
it works and releases them once their rows are written, so a run that dies stops blocking the
others after at most one lease period. Plain ``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` in
one transaction: the same on SQLite and PostgreSQL, and atomic on both.

Each lease also records the owner's host, pid and process start. A claim that finds units held
by a process of its own host that is gone (killed, its pid no longer running or reused) deletes
that owner's leases and takes the units at once, in the same transaction; units held by a live
owner, or by one on another host, are reported with their holder (:class:`Holder`), so a run that
must wait can say for whom and for how long.
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
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from lvlmbench.store import _schema as s
from lvlmbench.store._process import ProcessId, process_gone, this_process
from lvlmbench.store._store import Store

__all__ = ["DEFAULT_LEASE_S", "Claim", "Holder", "Leases", "new_owner"]


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
class Holder:
    """Another owner holding some of the units a claim asked for."""

    owner: str
    process: ProcessId | None
    """The owner process (None for a lease taken before leases recorded it)."""
    units: int
    """Units of the claim it holds."""
    expires_at: float
    """When the last of those leases expires unless renewed (seconds since the epoch)."""

    @property
    def label(self) -> str:
        """``HOST:PID`` of the owner (read from its owner id for an older lease)."""
        if self.process is not None:
            return self.process.label
        host, _, rest = self.owner.partition(":")
        return f"{host}:{rest.partition(':')[0]}" if rest else self.owner


@dataclass(frozen=True)
class Claim:
    """The outcome of one claim: units now ours, units already finished by someone, the live
    (or unknown) holders of the others, and the gone owners whose units were taken over."""

    mine: frozenset[str]
    done: frozenset[str]
    held: tuple[Holder, ...] = ()
    taken_over: tuple[Holder, ...] = ()


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
        self.process = this_process()
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
        """Take every unit of ``units`` that is free, expired or held by a gone owner of this
        host, in one transaction."""
        wanted = sorted(set(units))
        if not wanted:
            return Claim(frozenset(), frozenset())
        self.store.require_writable()
        rows = self._rows(wanted)
        finished = select(self.table.c.id).where(
            self.table.c.id.in_(wanted), self.table.c.status != _FINAL_EXCLUDED
        )
        with self.store.engine.begin() as conn:
            self._take(conn, rows)
            # Checked after taking, inside the write: a unit another run stored and released
            # between a check made first and the take would be taken and done again (its
            # answer then comes from the cache, or is paid twice when the cache row is late).
            done = {str(v) for v in conn.execute(finished).scalars()}
            mine = self._held_by_me(conn, wanted) - done
            others = sorted(set(wanted) - mine - done)
            holders = self._holders(conn, others) if others else []
            gone = [h for h in holders if h.process is not None and process_gone(h.process)]
            if gone:
                # Every lease of a gone owner goes (it will never release them), then its
                # units of this claim are taken like free ones: another run may take them
                # first, which the take settles as for any unit.
                conn.execute(delete(s.leases).where(s.leases.c.owner.in_([h.owner for h in gone])))
                self._take(conn, [row for row in rows if row["unit"] in set(others)])
                mine = self._held_by_me(conn, wanted) - done
                holders = [h for h in holders if h not in gone]
            if done:
                conn.execute(
                    delete(s.leases).where(
                        s.leases.c.owner == self.owner, s.leases.c.unit.in_(sorted(done))
                    )
                )
        return Claim(frozenset(mine), frozenset(done), tuple(holders), tuple(gone))

    def _rows(self, units: list[str]) -> list[dict[str, object]]:
        expires = self._clock() + self.lease_s
        me = self.process
        return [
            {
                "unit": unit,
                "owner": self.owner,
                "expires_at": expires,
                "host": me.host,
                "pid": me.pid,
                "started": me.started,
            }
            for unit in units
        ]

    def _held_by_me(self, conn: Connection, units: list[str]) -> set[str]:
        held = select(s.leases.c.unit).where(
            s.leases.c.owner == self.owner, s.leases.c.unit.in_(units)
        )
        return {str(v) for v in conn.execute(held).scalars()}

    @staticmethod
    def _holders(conn: Connection, units: list[str]) -> list[Holder]:
        """The owners holding ``units``, with how many each holds and their latest expiry."""
        c = s.leases.c
        query = (
            select(c.owner, c.host, c.pid, c.started, func.count(), func.max(c.expires_at))
            .where(c.unit.in_(units))
            .group_by(c.owner, c.host, c.pid, c.started)
            .order_by(c.owner)
        )
        return [
            Holder(
                owner=str(owner),
                process=None if host is None or pid is None else ProcessId(host, pid, started),
                units=int(count),
                expires_at=float(expires),
            )
            for owner, host, pid, started, count, expires in conn.execute(query)
        ]

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
                .values({k: v for k, v in row.items() if k != "unit"})
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
    taken = ("owner", "expires_at", "host", "pid", "started")
    return stmt.on_conflict_do_update(
        index_elements=["unit"],
        set_={name: stmt.excluded[name] for name in taken},
        where=or_(s.leases.c.expires_at < now, s.leases.c.owner == stmt.excluded.owner),
    )
