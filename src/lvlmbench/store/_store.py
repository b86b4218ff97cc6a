"""The store: one database (SQLite by default) plus a directory of content-addressed images.

Every write is its own short transaction and every key is a content id, so a killed run loses
at most what was in flight and re-running a step rewrites nothing it already has.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Insert,
    Table,
    create_engine,
    event,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, IntegrityError, NoSuchModuleError

from lvlmbench.store import _schema as s
from lvlmbench.store._files import (
    image_file,
    image_meta,
    read_only_engine,
    sqlite_file_problem,
    stored_form,
    stored_images,
    writable,
)
from lvlmbench.store._migrations import MIGRATIONS
from lvlmbench.store._wal import WalCheckpointer

__all__ = ["DEFAULT_SERVER_IMAGES", "DEFAULT_STORE_URL", "Store", "StoreError", "normalise_url"]

DEFAULT_STORE_URL = "sqlite:///lvlmbench.db"
DEFAULT_SERVER_IMAGES = "lvlmbench-images"
"""Images directory (under the working directory) of a store on a database server, unless
--images-dir or LVLMBENCH_IMAGES names one."""
# Any constant shared by every lvlmbench process: the advisory lock that serialises creating
# and migrating the schema on PostgreSQL, where concurrent CREATE TABLEs would collide.
_SCHEMA_LOCK = 0x6C766C6D
_IMAGE_HASH = re.compile(r"[0-9a-f]{64}")
# Tables whose writes bump the store's revision (an exclusion changes the human figures; leases,
# the call cache, image rows and the web app's annotators change no figure, and bumping for
# them would make every call of a run contend for one row).
_REVISED = frozenset({"benchmarks", "items", "responses", "judgments", "artifacts", "exclusions"})
_BUMP = s.revision.update().where(s.revision.c.id == 1).values(value=s.revision.c.value + 1)
_NOT_COUNTED = frozenset({"meta", "revision"})  # bookkeeping, not records (``info``)


class StoreError(RuntimeError):
    """The store cannot be opened or written; the message says which and why."""


def normalise_url(url: str | None) -> str:
    """A SQLAlchemy URL from ``--store``: a URL as is, a bare path as a SQLite file."""
    url = url or os.environ.get("LVLMBENCH_STORE") or DEFAULT_STORE_URL
    return url if "://" in url else f"sqlite:///{url}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # NORMAL is durable against process crashes in WAL mode, which is what resume relies on.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


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
        url = normalise_url(url)
        try:
            parsed = make_url(url)
        except ArgumentError:
            raise StoreError(f"--store {url!r} is not a database URL or file path") from None
        is_sqlite = parsed.get_backend_name() == "sqlite"
        if not is_sqlite:
            # Shown in messages, `store info` and reports: a database password never is.
            url = parsed.render_as_string(hide_password=True)
        database = parsed.database or ""
        db_path: Path | None = None
        if is_sqlite and database not in ("", ":memory:") and not database.startswith("file:"):
            db_path = Path(database).expanduser()
            problem = sqlite_file_problem(db_path)
            if problem is not None:
                raise StoreError(f"--store {url}: {problem}")
        read_only = db_path is not None and db_path.exists() and not writable(db_path)
        try:
            if db_path is not None and read_only:
                engine = read_only_engine(db_path)
            else:
                engine = create_engine(parsed)
        except (NoSuchModuleError, ArgumentError, ImportError) as exc:
            raise StoreError(
                f"--store {url}: unknown or unavailable database kind "
                f"{parsed.drivername!r} ({exc}); use a SQLite path or a postgresql+psycopg:// URL "
                "(pip install 'lvlmbench[postgres]')"
            ) from None
        if is_sqlite and not read_only:
            event.listen(engine, "connect", _sqlite_pragmas)
        store = cls(engine, _images_dir(images_dir, is_sqlite, database), url, read_only)
        if db_path is not None and not read_only:
            store.checkpointer = WalCheckpointer(db_path)
            store.checkpointer.attach(engine)
        store._prepare_schema()
        return store

    def require_writable(self) -> None:
        """Raise StoreError when the store was opened read-only."""
        if self.read_only:
            raise StoreError(
                f"store {self.url} is read-only (the file or its directory is not writable); "
                "it can be inspected (`lvlmbench store info`), not written"
            )

    def _prepare_schema(self) -> None:
        try:
            if self.read_only:
                self._check_read_only_schema()
                return
            with self.engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    # Workers started together would otherwise race to create the tables.
                    conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
                s.metadata.create_all(conn)
                self._ensure_revision_row(conn)
                found = conn.execute(
                    select(s.meta.c.value).where(s.meta.c.key == "schema")
                ).scalar()
                if found is None:
                    conn.execute(insert(s.meta).values(key="schema", value=str(s.SCHEMA_VERSION)))
                    return
                self._migrate(conn, int(found))
        except DatabaseError as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open store {self.url}: {exc.orig}") from None

    @staticmethod
    def _ensure_revision_row(conn: Connection) -> None:
        """The revision counter's one row (0 in a new store; an older store gains it here)."""
        dialect = conn.dialect.name
        row = {"id": 1, "value": 0}
        if dialect in ("sqlite", "postgresql"):
            conn.execute(_upsert(s.revision, dialect, False, tuple(row)), [row])
        elif conn.execute(select(s.revision.c.id)).first() is None:
            conn.execute(insert(s.revision).values(**row))

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

    def _check_read_only_schema(self) -> None:
        with self.engine.connect() as conn:
            if not inspect(conn).has_table("meta"):
                raise StoreError(f"store {self.url} is read-only and has no lvlmbench tables")
            found = conn.execute(select(s.meta.c.value).where(s.meta.c.key == "schema")).scalar()
        if found is not None and int(found) > s.SCHEMA_VERSION:
            raise StoreError(
                f"store {self.url} has schema {found}, newer than this lvlmbench understands "
                f"({s.SCHEMA_VERSION}): upgrade lvlmbench"
            )

    def _migrate(self, conn: Connection, version: int) -> None:
        if version > s.SCHEMA_VERSION:
            raise StoreError(
                f"store {self.url} has schema {version}, newer than this lvlmbench understands "
                f"({s.SCHEMA_VERSION}): upgrade lvlmbench"
            )
        while version < s.SCHEMA_VERSION:
            MIGRATIONS[version](conn)
            version += 1
        conn.execute(s.meta.update().where(s.meta.c.key == "schema").values(value=str(version)))

    def schema_version(self) -> int:
        """The schema version recorded in the store."""
        with self.engine.connect() as conn:
            return int(
                conn.execute(select(s.meta.c.value).where(s.meta.c.key == "schema")).scalar_one()
            )

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
        dialect = self.engine.dialect.name
        with self.engine.begin() as conn:
            if dialect in ("sqlite", "postgresql"):
                conn.execute(_upsert(table, dialect, replace, tuple(rows[0])), rows)
            else:
                keys = [c.name for c in table.primary_key.columns]
                self._insert_portable(conn, table, rows, keys, replace)
            if table.name in _REVISED:
                # Last, so a PostgreSQL writer holds the counter row's lock only until commit.
                conn.execute(_BUMP)

    @staticmethod
    def _insert_portable(
        conn: Connection, table: Table, rows: list[dict[str, Any]], keys: list[str], replace: bool
    ) -> None:
        for row in rows:
            where = [table.c[k] == row[k] for k in keys]
            exists = conn.execute(select(func.count()).select_from(table).where(*where)).scalar()
            if exists and replace:
                conn.execute(table.update().where(*where).values(**row))
            elif not exists:
                with contextlib.suppress(IntegrityError):
                    conn.execute(insert(table).values(**row))

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


@functools.lru_cache(maxsize=64)
def _upsert(table: Table, dialect: str, replace: bool, columns: tuple[str, ...]) -> Insert:
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


def _images_dir(explicit: str | Path | None, is_sqlite: bool, database: str) -> Path:
    if explicit is not None:
        return Path(explicit)
    if os.environ.get("LVLMBENCH_IMAGES"):
        return Path(os.environ["LVLMBENCH_IMAGES"])
    if is_sqlite and database not in ("", ":memory:"):
        return Path(database).expanduser().resolve().parent / "images"
    if is_sqlite:
        return Path.cwd() / "images"
    # A database server has no directory of its own: workers on several hosts must name one
    # shared path (NFS, a mounted bucket) with --images-dir or LVLMBENCH_IMAGES.
    return Path.cwd() / DEFAULT_SERVER_IMAGES
