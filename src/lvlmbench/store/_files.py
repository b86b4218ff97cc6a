"""Checks on a SQLite store file before anything opens it for writing, and read-only engines.

SQLite happily opens a text file, a PNG or a half-copied database and only fails on the first
query, with a driver traceback and sometimes a ``-wal`` file already created beside it. These
checks read a few header bytes instead, so a wrong ``--store`` costs one clear line and leaves
the file exactly as it was.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine

__all__ = ["read_only_engine", "sqlite_file_problem", "writable"]

_MAGIC = b"SQLite format 3\x00"
_KNOWN = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a ZIP archive",
    b"%PDF": "a PDF document",
}


def sqlite_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a SQLite store, or None (a missing or empty file is fine: the
    store is created there)."""
    if path.is_dir():
        return f"{path} is a directory, expected a database file"
    if not path.exists():
        return None if path.parent.is_dir() else f"directory {path.parent} does not exist"
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if not header:
        return None
    if not header.startswith(_MAGIC):
        kind = next((name for magic, name in _KNOWN.items() if header.startswith(magic)), None)
        return f"{path} is {kind or 'not a SQLite database'}, expected a lvlmbench store"
    return _truncation(path, header)


def _truncation(path: Path, header: bytes) -> str | None:
    """A database shorter than the page count its header records (copied or downloaded only
    in part). The count is trusted only when SQLite marks it valid (bytes 92-95 equal the
    change counter at 24-27), as SQLite itself does."""
    if len(header) < 100:
        return f"{path} is truncated: {len(header)} bytes, shorter than a SQLite header"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if header[24:28] != header[92:96] or pages == 0:
        return None
    size = path.stat().st_size
    if size < page_size * pages:
        return (
            f"{path} is truncated: {size:,} bytes where its header records "
            f"{pages} pages of {page_size} ({page_size * pages:,} bytes)"
        )
    return None


def writable(path: Path) -> bool:
    """Whether this process may write the database file and create its journal beside it."""
    parent_ok = os.access(path.parent, os.W_OK | os.X_OK)
    return parent_ok and (not path.exists() or os.access(path, os.W_OK))


def read_only_engine(path: Path) -> Engine:
    """An engine that only reads ``path``: no tables created, no journal mode changed.

    Without a ``-wal`` file beside it nobody is writing the database and the file holds every
    committed row, so it is read as immutable: no ``-shm``/``-wal`` files are created either.
    With one, SQLite must read it (it may hold committed rows not yet copied back).
    """
    uri = path.resolve().as_uri() + "?mode=ro"
    if not path.with_name(path.name + "-wal").exists():
        uri += "&immutable=1"

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        connection.execute("PRAGMA query_only=1")
        return connection

    return create_engine("sqlite://", creator=connect)
