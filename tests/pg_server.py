"""A real PostgreSQL server for tests: Debian's binaries, `initdb` and `pg_ctl` in a temp dir.

The server starts once per test session (about a second) and every test gets a database of its
own, so tests never see each other's rows. PostgreSQL refuses to run as root, so as root the
cluster belongs to ``nobody`` and its directory lives directly under /tmp (pytest's own temp
tree is private to root). Without the binaries a test skips locally and fails in CI (CI=true):
`make test` installs them (apt-get install postgresql).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SUPERUSER = "lvlm"


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_missing() -> str | None:
    """What is missing to start a throwaway PostgreSQL server here, or None."""
    import importlib.util

    problems = []
    if _binaries() is None:
        problems.append("PostgreSQL server binaries (apt-get install postgresql)")
    if importlib.util.find_spec("psycopg") is None:
        problems.append("psycopg (pip install 'lvlmbench[postgres]')")
    if problems:
        return f"missing {' and '.join(problems)}; `make test` installs them"
    return None


def require_postgres() -> Path:
    """The directory of initdb/pg_ctl, or skip (fail in CI) when PostgreSQL is missing."""
    message = postgres_missing()
    if message is not None:
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    binaries = _binaries()
    assert binaries is not None
    return binaries


@dataclass
class PostgresServer:
    """A running cluster on a loopback port; :meth:`new_database` gives each test its own."""

    port: int
    root: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database and return its SQLAlchemy URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        dsn = f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _as_owner() -> dict[str, Any]:
    """Popen arguments that run the server as ``nobody`` when we are root."""
    return {"user": "nobody", "group": "nogroup"} if os.geteuid() == 0 else {}


def _run(cmd: list[str], log: Path) -> None:
    with log.open("ab") as sink:
        done = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT, **_as_owner())
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({done.returncode}): {log.read_text()[-2000:]}")


def start_postgres() -> Iterator[PostgresServer]:
    """Start a throwaway cluster (fsync off: its data dies with the test session)."""
    binaries = require_postgres()
    root = Path(tempfile.mkdtemp(prefix="lvlmbench-pg-"))
    if os.geteuid() == 0:
        os.chown(root, *_nobody_ids())
    data, log = root / "data", root / "server.log"
    log.touch()
    if os.geteuid() == 0:
        os.chown(log, *_nobody_ids())
    port = _free_port()
    initdb = [str(binaries / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust"]
    _run([*initdb, "--no-sync", "-E", "UTF8", "--locale=C"], log)
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    options += " -c max_connections=200 -c full_page_writes=off"
    pg_ctl = str(binaries / "pg_ctl")
    _run([pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"], log)
    try:
        yield PostgresServer(port=port, root=root)
    finally:
        _run([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], log)
        shutil.rmtree(root, ignore_errors=True)


def _nobody_ids() -> tuple[int, int]:
    import grp
    import pwd

    return pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL cluster for the session (integration tests only)."""
    yield from start_postgres()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store URL: a SQLite file, and (integration) a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()
