"""What an import must remember about every row, kept on disk instead of in memory.

A streamed import still needs facts about rows it has passed: which keys it has seen (a
duplicate names the first row), which pictures it stored (the summary counts distinct ones),
which row another row's ``image`` cell points to (VLMEvalKit). Held in dicts, these grow with
the file (a 10-million-row file: gigabytes); here they are tables of a throwaway SQLite file in
a temporary folder, so an import's memory stays the same whatever the file's size. Each
lookup is a few microseconds; a file of under :data:`IN_MEMORY` rows never touches the disk.
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import tempfile
from pathlib import Path
from types import TracebackType

__all__ = ["IN_MEMORY", "DiskMap", "Scratch"]

IN_MEMORY = 100_000
"""Keys a :class:`DiskMap` keeps in memory (about 15 MB of short keys) before it moves them to
disk."""


class DiskMap:
    """A str → str mapping that lives in a Python dict while it is small and moves to a
    :class:`Scratch` table once it holds :data:`IN_MEMORY` keys: files of ordinary size pay
    nothing for the disk, and memory stops growing there for any size."""

    def __init__(self, connection: sqlite3.Connection, name: str) -> None:
        self._db = connection
        self._name = name
        self._memory: dict[str, str] | None = {}

    def _spill(self) -> None:
        assert self._memory is not None
        self._db.execute(f"CREATE TABLE {self._name} (key TEXT PRIMARY KEY, value TEXT)")
        self._db.executemany(  # in insertion order, so first() keeps it
            f"INSERT INTO {self._name} (key, value) VALUES (?, ?)", self._memory.items()
        )
        self._memory = None

    def setdefault(self, key: str, value: str = "") -> str | None:
        """Store ``value`` under ``key`` unless the key is there: None when it was stored,
        else the value already there (``dict.setdefault`` told apart from a first insert)."""
        if self._memory is not None:
            found = self._memory.get(key)
            if found is not None:
                return found
            self._memory[key] = value
            if len(self._memory) >= IN_MEMORY:
                self._spill()
            return None
        cursor = self._db.execute(
            f"INSERT OR IGNORE INTO {self._name} (key, value) VALUES (?, ?)", (key, value)
        )
        if cursor.rowcount == 1:
            return None
        return self.get(key)

    def __setitem__(self, key: str, value: str) -> None:
        if self._memory is not None:
            self._memory[key] = value
            if len(self._memory) >= IN_MEMORY:
                self._spill()
            return
        self._db.execute(
            f"INSERT OR REPLACE INTO {self._name} (key, value) VALUES (?, ?)", (key, value)
        )

    def get(self, key: str) -> str | None:
        """The value under ``key``, or None."""
        if self._memory is not None:
            return self._memory.get(key)
        row = self._db.execute(f"SELECT value FROM {self._name} WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        if self._memory is not None:
            return len(self._memory)
        return int(self._db.execute(f"SELECT count(*) FROM {self._name}").fetchone()[0])

    def first(self, limit: int) -> list[str]:
        """Up to ``limit`` keys in the order they were first stored."""
        if self._memory is not None:
            return list(itertools.islice(self._memory, limit))
        query = f"SELECT key FROM {self._name} ORDER BY rowid LIMIT ?"
        return [str(row[0]) for row in self._db.execute(query, (limit,))]


class Scratch:
    """A temporary SQLite file holding named :class:`DiskMap` tables; removed on close (use it
    as a context manager)."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="lvlmbench-import-")
        # Nothing here must survive a crash, so nothing is synced or journaled.
        # An import's writing thread uses its tables while the reading thread waits for it:
        # one thread at a time, so the connection may change threads.
        self._db = sqlite3.connect(
            Path(self._folder.name) / "scratch.db", isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("PRAGMA cache_size = -8192")  # 8 MiB of pages, whatever the file
        self._db.execute("BEGIN")
        self._maps: dict[str, DiskMap] = {}

    def map(self, name: str) -> DiskMap:
        """The table ``name`` (letters and underscores), created on first use."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a table name: {name!r}")
        if name not in self._maps:
            self._maps[name] = DiskMap(self._db, name)
        return self._maps[name]

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._folder.cleanup()

    def __enter__(self) -> Scratch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
