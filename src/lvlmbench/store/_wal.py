"""SQLite's write-ahead log checkpointed on a thread of its own, not inside a run's commits.

SQLite copies the log back into the database file from whichever commit finds it past 1,000
pages (~4 MiB): that commit then takes as long as the copy. In an evaluation the commits are
the call cache's and the leases', made on the event loop's thread between requests, so every
~10,000 answers one of them stalled the loop for ~100 ms with 64 calls in flight (measured:
a lease claim of 102 ms among claims of 2 ms). Here the store's own connections never
checkpoint (``wal_autocheckpoint=0``); once the log has grown by as much again, a background
thread runs a PASSIVE checkpoint on its own connection. PASSIVE waits for no reader or writer,
and the sqlite3 module lets go of the GIL while SQLite works, so the loop runs on meanwhile.
"""

from __future__ import annotations

import atexit
import contextlib
import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

__all__ = ["WalCheckpointer"]

WAL_GROWTH = 4 * 1024 * 1024
"""Log growth (bytes) between two checkpoints: what SQLite's default of 1,000 pages makes."""
CHECK_EVERY = 32
"""Connection uses between two looks at the log's size (a stat of its file)."""

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _background() -> ThreadPoolExecutor:
    """One thread for every store of the process: checkpoints are rare and short."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lvlmbench-wal")
            atexit.register(_executor.shutdown, wait=True)
        return _executor


def _no_autocheckpoint(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


class WalCheckpointer:
    """Watches one SQLite store's log through its engine's commits and checkpoints it in the
    background each time it has grown by :data:`WAL_GROWTH`."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._log = database.with_name(database.name + "-wal")
        self._commits = 0
        self._checked_at = 0
        """Log size when the last checkpoint was asked for."""
        self._pending: Future[None] | None = None
        self.checkpoints = 0
        """Checkpoints run so far (for tests and benchmarks)."""

    def attach(self, engine: Engine) -> None:
        """Take checkpointing over from ``engine``'s connections (call before its first
        connection): they never checkpoint, and every :data:`CHECK_EVERY` times one of them is
        given back to the pool the log's growth is looked at (a check-in follows every write,
        the driver-level ones of the call cache included)."""
        event.listen(engine, "connect", _no_autocheckpoint)
        event.listen(engine, "checkin", self._checked_in)

    def _checked_in(self, _connection: Any, _record: Any) -> None:
        self._commits += 1
        if self._commits % CHECK_EVERY:
            return
        if self._pending is not None and not self._pending.done():
            return
        try:
            size = self._log.stat().st_size
        except OSError:  # no log yet, or it was just reset
            return
        if size < self._checked_at:  # the log was reset (restarted from the start)
            self._checked_at = 0
        if size - self._checked_at >= WAL_GROWTH:
            self._checked_at = size
            self._pending = _background().submit(self._checkpoint)

    def _checkpoint(self) -> None:
        # A connection of its own: the engine's belong to the event loop's thread. (Were it
        # the last one open, closing it would checkpoint fully and remove the log, as closing
        # any last connection does.)
        connection = sqlite3.connect(self.database, timeout=30)
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1
        finally:
            connection.close()

    def wait(self) -> None:
        """Let a checkpoint under way finish (before the store closes)."""
        pending = self._pending
        if pending is not None:
            with contextlib.suppress(Exception):
                pending.result()
