"""A SQLite store's log is checkpointed by a background thread, never by a run's commits."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from lvlmbench.store import Store, put_cached_calls
from lvlmbench.store import _wal as wal


def _rows(start: int, count: int) -> list[dict[str, object]]:
    return [
        {
            "key": f"{start + i:064d}",
            "kind": "chat",
            "spec": "fake/wal",
            "output": "x" * 2000,
            "input_tokens": 1,
            "output_tokens": 1,
            "created_at": 0.0,
        }
        for i in range(count)
    ]


def _commit_one_by_one(store: Store, count: int) -> None:
    for i in range(count):
        put_cached_calls(store, _rows(i, 1))


def test_store_connections_leave_checkpoints_to_the_checkpointer(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 0
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    assert store.checkpointer is not None
    store.close()


def test_commits_never_copy_the_log_back_themselves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wal, "CHECK_EVERY", 10**9)  # the checkpointer never looks
    store = Store.open(str(tmp_path / "s.db"))
    database = tmp_path / "s.db"
    before = database.stat().st_size
    _commit_one_by_one(store, 3000)  # ~6 MB of log: past SQLite's own 1,000-page checkpoint
    assert (tmp_path / "s.db-wal").stat().st_size > 4 * 1024 * 1024
    assert database.stat().st_size == before  # nothing copied back by a commit
    store.close()


def test_the_log_is_checkpointed_on_a_background_thread_as_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wal, "CHECK_EVERY", 1)
    monkeypatch.setattr(wal, "WAL_GROWTH", 256 * 1024)
    threads: list[str] = []
    checkpoint = wal.WalCheckpointer._checkpoint

    def recorded(self: wal.WalCheckpointer) -> None:
        threads.append(threading.current_thread().name)
        checkpoint(self)

    monkeypatch.setattr(wal.WalCheckpointer, "_checkpoint", recorded)
    store = Store.open(str(tmp_path / "s.db"))
    database = tmp_path / "s.db"
    before = database.stat().st_size
    _commit_one_by_one(store, 600)  # ~1.2 MB of log
    assert store.checkpointer is not None
    store.checkpointer.wait()
    assert store.checkpointer.checkpoints >= 1 and len(threads) >= 1
    assert all(name.startswith("lvlmbench-wal") for name in threads)
    assert database.stat().st_size > before + 500 * 1024  # the log was copied back
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM cache")).scalar() == 600
    store.close()


def test_an_in_memory_store_has_no_checkpointer(tmp_path: Path) -> None:
    memory = Store.open("sqlite://")
    assert memory.checkpointer is None
    memory.close()
