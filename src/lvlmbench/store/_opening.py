"""Opening a store: ``--store`` made a database engine, the images directory chosen, and the
schema created, checked (read-only) or migrated before the first record is read.

Everything here runs once per :meth:`lvlmbench.store.Store.open`; a path or URL that cannot be
a store fails here with one line naming it, before anything is created beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, func, insert, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError

from lvlmbench.store import _schema as s
from lvlmbench.store._files import read_only_engine, sqlite_file_problem, writable
from lvlmbench.store._migrations import MIGRATIONS
from lvlmbench.store._upserts import upsert

__all__ = [
    "DEFAULT_SERVER_IMAGES",
    "DEFAULT_STORE_URL",
    "Database",
    "StoreError",
    "normalise_url",
    "open_database",
    "prepare_schema",
    "schema_version",
]

DEFAULT_STORE_URL = "sqlite:///lvlmbench.db"
DEFAULT_SERVER_IMAGES = "lvlmbench-images"
"""Images directory (under the working directory) of a store on a database server, unless
--images-dir or LVLMBENCH_IMAGES names one."""
# Any constant shared by every lvlmbench process: the advisory lock that serialises creating
# and migrating the schema on PostgreSQL, where concurrent CREATE TABLEs would collide.
_SCHEMA_LOCK = 0x6C766C6D


class StoreError(RuntimeError):
    """The store cannot be opened or written; the message says which and why."""


@dataclass(frozen=True)
class Database:
    """An opened database, before its schema is prepared."""

    engine: Engine
    url: str
    """As shown in messages, ``store info`` and reports: a server's password hidden."""
    images_dir: Path
    read_only: bool
    """The SQLite file (or its directory) is not writable: nothing may be created or written."""
    sqlite_file: Path | None
    """The SQLite file on disk, whose log the store checkpoints; None for other databases."""


def normalise_url(url: str | None) -> str:
    """A SQLAlchemy URL from ``--store``: a URL as is, a bare path as a SQLite file."""
    url = url or os.environ.get("LVLMBENCH_STORE") or DEFAULT_STORE_URL
    return url if "://" in url else f"sqlite:///{url}"


def open_database(url: str | None, images_dir: str | Path | None) -> Database:
    """The engine for ``url`` (``--store``, LVLMBENCH_STORE or the default); StoreError when it
    names no database this process can use, the path left as it was."""
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"--store {url!r} is not a database URL or file path") from None
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if not is_sqlite:
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
    chosen = _images_dir(images_dir, is_sqlite, database)
    return Database(engine, url, chosen, read_only, None if read_only else db_path)


def prepare_schema(database: Database) -> None:
    """Create the tables of a new store, migrate an older one, or (read-only) check that this
    lvlmbench can read it; StoreError otherwise, the engine disposed."""
    engine = database.engine
    try:
        if database.read_only:
            _check_read_only_schema(engine, database.url)
            return
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Workers started together would otherwise race to create the tables.
                conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
            s.metadata.create_all(conn)
            _ensure_revision_row(conn)
            found = conn.execute(select(s.meta.c.value).where(s.meta.c.key == "schema")).scalar()
            if found is None:
                conn.execute(insert(s.meta).values(key="schema", value=str(s.SCHEMA_VERSION)))
                return
            _migrate(conn, database.url, int(found))
    except DatabaseError as exc:
        engine.dispose()
        raise StoreError(f"cannot open store {database.url}: {exc.orig}") from None


def schema_version(engine: Engine) -> int:
    """The schema version recorded in the store."""
    with engine.connect() as conn:
        return int(
            conn.execute(select(s.meta.c.value).where(s.meta.c.key == "schema")).scalar_one()
        )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # NORMAL is durable against process crashes in WAL mode, which is what resume relies on.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _ensure_revision_row(conn: Connection) -> None:
    """The revision counter's one row (0 in a new store; an older store gains it here)."""
    dialect = conn.dialect.name
    row = {"id": 1, "value": 0}
    if dialect in ("sqlite", "postgresql"):
        conn.execute(upsert(s.revision, dialect, False, tuple(row)), [row])
    elif conn.execute(select(s.revision.c.id)).first() is None:
        conn.execute(insert(s.revision).values(**row))


def _check_read_only_schema(engine: Engine, url: str) -> None:
    with engine.connect() as conn:
        if not inspect(conn).has_table("meta"):
            raise StoreError(f"store {url} is read-only and has no lvlmbench tables")
        found = conn.execute(select(s.meta.c.value).where(s.meta.c.key == "schema")).scalar()
    if found is not None:
        _refuse_newer(url, int(found))


def _migrate(conn: Connection, url: str, version: int) -> None:
    _refuse_newer(url, version)
    while version < s.SCHEMA_VERSION:
        MIGRATIONS[version](conn)
        version += 1
    conn.execute(s.meta.update().where(s.meta.c.key == "schema").values(value=str(version)))


def _refuse_newer(url: str, version: int) -> None:
    if version > s.SCHEMA_VERSION:
        raise StoreError(
            f"store {url} has schema {version}, newer than this lvlmbench understands "
            f"({s.SCHEMA_VERSION}): upgrade lvlmbench"
        )


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
