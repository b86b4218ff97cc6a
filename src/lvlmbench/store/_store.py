"""The store: one database (SQLite by default) plus a directory of content-addressed images.

Every write is its own short transaction and every key is a content id, so a killed run loses
at most what was in flight and re-running a step rewrites nothing it already has.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Table, func, inspect, select
from sqlalchemy.exc import DatabaseError

from lvlmbench.store import _schema as s
from lvlmbench.store._files import image_file, image_meta, stored_form, stored_images
from lvlmbench.store._opening import (
    DEFAULT_SERVER_IMAGES,
    DEFAULT_STORE_URL,
    StoreError,
    normalise_url,
    open_database,
    prepare_schema,
    schema_version,
)
from lvlmbench.store._upserts import insert_rows
from lvlmbench.store._wal import WalCheckpointer

__all__ = ["DEFAULT_SERVER_IMAGES", "DEFAULT_STORE_URL", "Store", "StoreError", "normalise_url"]

_IMAGE_HASH = re.compile(r"[0-9a-f]{64}")
_NOT_COUNTED = frozenset({"meta", "revision"})  # bookkeeping, not records (``info``)


class Store:
    """Reads and writes lvlmbench's records. Open with :meth:`open`."""

    def __init__(self, engine: Engine, images_dir: Path, url: str, read_only: bool = False) -> None:
        self.engine = engine
        self.images_dir = images_dir
        self.url = url
        self.read_only = read_only
        """Opened only to read (the file or its directory is not writable): writes raise."""
        self.checkpointer: WalCheckpointer | None = None
        """A SQLite file store's log checkpoints, made in the background (see ``_wal``)."""

    @classmethod
    def open(cls, url: str | None = None, images_dir: str | Path | None = None) -> Store:
        """Open (creating if needed) the store at ``url``; migrate an older schema.

        A SQLite file this process may not write is opened read-only (nothing created, any
        write raises StoreError). A path that is not a store raises StoreError and is left as
        it was.
        """
        database = open_database(url, images_dir)
        store = cls(database.engine, database.images_dir, database.url, database.read_only)
        if database.sqlite_file is not None:
            store.checkpointer = WalCheckpointer(database.sqlite_file)
            store.checkpointer.attach(database.engine)
        prepare_schema(database)
        return store

    def require_writable(self) -> None:
        """Raise StoreError when the store was opened read-only."""
        if self.read_only:
            raise StoreError(
                f"store {self.url} is read-only (the file or its directory is not writable); "
                "it can be inspected (`lvlmbench store info`), not written"
            )

    def revision(self) -> int | None:
        """The store's revision: a counter every write of benchmarks, items, responses,
        judgments or artifacts raises in its own transaction, whichever process writes. Read
        it *before* reading records and a result computed from them stays right for as long as
        the revision is unchanged. None for a read-only store made before the counter existed
        (nothing may then be reused)."""
        try:
            with self.engine.connect() as conn:
                found = conn.execute(select(s.revision.c.value).where(s.revision.c.id == 1))
                value = found.scalar()
        except DatabaseError:
            return None
        return None if value is None else int(value)

    def schema_version(self) -> int:
        """The schema version recorded in the store."""
        return schema_version(self.engine)

    def close(self) -> None:
        """Release database connections."""
        if self.checkpointer is not None:
            self.checkpointer.wait()
        self.engine.dispose()

    # -- generic upserts -------------------------------------------------------------------

    def _insert(self, table: Table, rows: list[dict[str, Any]], replace: bool) -> None:
        """Insert rows keyed by primary key; existing keys are kept (or replaced)."""
        if not rows:
            return
        self.require_writable()
        with self.engine.begin() as conn:
            insert_rows(conn, table, rows, replace)

    def put_rows(
        self,
        table: Table,
        rows: Iterable[Mapping[str, Any]],
        replace: bool = False,
        batch: int = 500,
    ) -> None:
        """Upsert rows into ``table`` in batches (one transaction per batch)."""
        chunk: list[dict[str, Any]] = []
        for row in rows:
            chunk.append(dict(row))
            if len(chunk) >= batch:
                self._insert(table, chunk, replace)
                chunk = []
        self._insert(table, chunk, replace)

    def get_row(self, table: Table, key: str) -> dict[str, Any] | None:
        """The row with primary key ``key``, or None."""
        pk = next(iter(table.primary_key.columns))
        with self.engine.connect() as conn:
            row = conn.execute(select(table).where(pk == key)).mappings().first()
        return dict(row) if row is not None else None

    def iter_rows(
        self, table: Table, order_by: str | None = None, **where: Any
    ) -> Iterator[dict[str, Any]]:
        """Rows of ``table`` matching equality filters, streamed."""
        query = select(table).where(*[table.c[k] == v for k, v in where.items()])
        if order_by:
            query = query.order_by(table.c[order_by])
        with self.engine.connect() as conn:
            for row in conn.execution_options(stream_results=True).execute(query).mappings():
                yield dict(row)

    def existing_keys(self, table: Table, column: str = "id", **where: Any) -> set[str]:
        """Primary keys (or another column's values) present under equality filters."""
        query = select(table.c[column]).where(*[table.c[k] == v for k, v in where.items()])
        with self.engine.connect() as conn:
            return {str(v) for v in conn.execute(query).scalars()}

    def count(self, table: Table, **where: Any) -> int:
        """Number of rows matching equality filters."""
        query = (
            select(func.count())
            .select_from(table)
            .where(*[table.c[k] == v for k, v in where.items()])
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def max_value(self, table: Table, column: str, **where: Any) -> int:
        """Largest integer in ``column`` under equality filters (None filters skipped), or -1."""
        filters = [table.c[k] == v for k, v in where.items() if v is not None]
        query = select(func.max(table.c[column])).where(*filters)
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return -1 if found is None else int(found)

    # -- images ----------------------------------------------------------------------------

    def put_image(self, data: bytes) -> str:
        """Store an image under the sha256 of its stored bytes and return the hash. Idempotent.

        PNG and JPEG are kept byte for byte (every provider accepts both: re-encoding a photo
        as PNG made it ~8× larger in every request); other formats are re-encoded to PNG so
        every file under ``images/`` is what its name says. Raises StoreError when the bytes
        are not a readable image.
        """
        return self.put_images([data])[0]

    def put_images(self, images: Sequence[bytes]) -> list[str]:
        """:meth:`put_image` for several images, their rows written in one transaction (an
        import of 100,000 pictures would otherwise commit 100,000 times); the hashes in order."""
        self.require_writable()
        digests: list[str] = []
        rows: dict[str, dict[str, Any]] = {}
        files: list[tuple[Path, bytes]] = []
        for given in images:
            try:
                data, suffix = stored_form(given)
            except ValueError as exc:
                raise StoreError(str(exc)) from None
            digest = hashlib.sha256(data).hexdigest()
            digests.append(digest)
            if digest in rows:
                continue
            path = self.images_dir / f"{digest}{suffix}"
            if not path.exists():
                files.append((path, data))
            width, height, media = image_meta(data)
            rows[digest] = {
                "sha256": digest,
                "media_type": media,
                "width": width,
                "height": height,
                "bytes": len(data),
                "created_at": time.time(),
            }
        if files:
            self.images_dir.mkdir(parents=True, exist_ok=True)
            if len(files) < 8:
                for path, data in files:
                    _write_image_file(path, data)
            else:  # creating a file is mostly waiting on the disk: a few at a time
                with ThreadPoolExecutor(4, thread_name_prefix="lvlmbench-images") as pool:
                    list(pool.map(_write_image_file, *zip(*files, strict=True)))
        self.put_rows(s.images, rows.values())  # after the files: a row never lacks its file
        return digests

    def image_path(self, digest: str) -> Path:
        """Where the image with this hash lives (it may not exist): ``<hash>.png``, or
        ``<hash>.jpg`` for a JPEG kept as given."""
        if _IMAGE_HASH.fullmatch(digest) is None:
            raise StoreError(f"not an image hash: {digest[:80]!r}")
        return image_file(self.images_dir, digest)

    def read_image(self, digest: str) -> bytes:
        """Bytes of a stored image; StoreError naming the hash when missing."""
        path = self.image_path(digest)
        if not path.exists():
            raise StoreError(f"image {digest} is not in {self.images_dir}")
        return path.read_bytes()

    def info(self) -> dict[str, Any]:
        """Schema version, row counts per table, image directory and its size."""
        with self.engine.connect() as conn:
            present = set(inspect(conn).get_table_names())
        # Only tables the store has: a read-only store of an older version cannot gain new ones.
        counts = {
            name: self.count(table)
            for name, table in s.metadata.tables.items()
            if name not in _NOT_COUNTED and name in present
        }
        files = stored_images(self.images_dir)
        return {
            "url": self.url,
            "read_only": self.read_only,
            "schema_version": self.schema_version(),
            "tables": counts,
            "images_dir": str(self.images_dir),
            "image_files": len(files),
            "image_bytes": sum(f.stat().st_size for f in files),
        }


def _write_image_file(path: Path, data: bytes) -> None:
    # Write then rename, so a crash never leaves a half-written file under the hash.
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(path)
