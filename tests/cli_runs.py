"""What tests that run the lvlmbench command need: a run's JSON report, a clean environment for
a subprocess, and counts read from the store it writes."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from lvlmbench.cli import app

__all__ = ["clean_env", "count_rows", "evaluate_json", "store_state", "units_stored"]


def evaluate_json(db: Path, benchmark: str, *args: str) -> dict[str, Any]:
    """``lvlmbench evaluate BENCHMARK ARGS --store DB --json`` in-process; it must succeed."""
    result = CliRunner().invoke(app, ["evaluate", benchmark, *args, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def clean_env() -> dict[str, str]:
    """This process's environment without LVLMBENCH_* settings, output unbuffered."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LVLMBENCH_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def count_rows(db: Path, table: str, where: str = "") -> int:
    """Rows of ``table`` (matching the SQL condition ``where``) in the SQLite store ``db``."""
    query = f"SELECT count(*) FROM {table}" + (f" WHERE {where}" if where else "")
    with contextlib.closing(sqlite3.connect(db, timeout=30)) as connection:
        count: int = connection.execute(query).fetchone()[0]
    return count


def units_stored(db: Path) -> int:
    """Finished AutoBench-V units in the store ``db`` a live run is writing, read without
    disturbing it: 0 while the file or the table does not exist yet or the store is busy (the
    caller polls again)."""
    if not db.exists():
        return 0
    query = "SELECT count(*) FROM artifacts WHERE stage = 'units'"
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as c:
            row = c.execute(query).fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(row[0])


def store_state(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the SQLite store ``db`` (sorted, per table) and the files
    of its image folder (``images/`` beside it, under the key ``"images/"``): equal before and
    after a command that must change nothing."""
    state: dict[str, list[tuple[Any, ...]]] = {}
    with contextlib.closing(sqlite3.connect(db, timeout=30)) as connection:
        names = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall()
        for (name,) in names:
            rows = connection.execute(f'SELECT * FROM "{name}"').fetchall()
            state[name] = sorted(rows, key=repr)
    folder = db.parent / "images"
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    state["images/"] = [(name,) for name in files]
    return state
