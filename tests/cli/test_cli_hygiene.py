"""Bad settings and bad stores: one error line, exit 2, and not a byte of the store changed.
A store this process may not write still opens for `store info`."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.cli import app
from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

runner = CliRunner()
BENCH = "tiny"
SPEC = "baseline/random"


def _make_store(path: Path) -> Path:
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=content_id(BENCH, i),
                benchmark=BENCH,
                kind="mc",
                question=f"Question {i}?",
                options={"A": "one", "B": "two"},
                answer="A",
            )
            for i in range(5)
        ],
    )
    store.close()
    return path


def _snapshot(directory: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``directory``: content hash and modification time."""
    return {
        str(p.relative_to(directory)): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, output
    return errors[0]


BAD_SETTINGS = {
    "generate-concurrency-0": (["generate", "spatial understanding", "--concurrency", "0"], {}),
    "generate-workers-abc": (["generate", "spatial understanding"], {"LVLMBENCH_WORKERS": "abc"}),
    "evaluate-workers-abc": (["evaluate", BENCH, "-m", SPEC], {"LVLMBENCH_WORKERS": "abc"}),
    "evaluate-concurrency-0": (["evaluate", BENCH, "-m", SPEC, "--concurrency", "0"], {}),
    "judge-concurrency-0": (
        ["judge", "score", BENCH, "-m", SPEC, "-j", SPEC, "--concurrency", "0"],
        {},
    ),
    "position-bias-concurrency-0": (
        ["experiment", "position-bias", BENCH, "-m", SPEC, "--concurrency", "-1"],
        {},
    ),
    "leakage-concurrency-0": (
        ["experiment", "leakage", BENCH, "-m", SPEC, "--concurrency", "0"],
        {},
    ),
}


@pytest.mark.parametrize("case", list(BAD_SETTINGS), ids=list(BAD_SETTINGS))
def test_a_bad_setting_fails_before_anything_is_written(tmp_path: Path, case: str) -> None:
    args, env = BAD_SETTINGS[case]
    db = _make_store(tmp_path / "s.db")
    before = _snapshot(tmp_path)
    result = runner.invoke(app, [*args, "--store", str(db)], env=env)
    assert result.exit_code == 2, result.output
    line = _one_error_line(result.output)
    assert "LVLMBENCH_WORKERS" in line or "concurrency" in line
    assert _snapshot(tmp_path) == before


def test_a_bad_setting_does_not_create_a_store(tmp_path: Path) -> None:
    args = ["generate", "spatial understanding", "--concurrency", "0"]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "new.db")])
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_generate_settings_reject_zero_concurrency() -> None:
    # 0 used to make every unit wait forever on a zero-slot semaphore.
    with pytest.raises(ValueError, match="concurrency"):
        GenerateSettings(capability="x", concurrency=0).validate()
    with pytest.raises(ValueError, match="tf_share"):
        GenerateSettings(capability="x", tf_share=1.5).validate()


def _bad_stores(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (--store value, what the error line must say)."""
    (tmp_path / "notes.db").write_text("just some notes\n")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    good = _make_store(tmp_path / "good.db").read_bytes()
    (tmp_path / "half.db").write_bytes(good[: len(good) // 2])
    (tmp_path / "header-only.db").write_bytes(good[:40])
    (tmp_path / "folder").mkdir()
    (tmp_path / "good.db").unlink()
    return {
        "text": (str(tmp_path / "notes.db"), "not a SQLite database"),
        "png": (str(tmp_path / "picture.png"), "is a PNG image"),
        "truncated": (str(tmp_path / "half.db"), "is truncated"),
        "header-only": (str(tmp_path / "header-only.db"), "is truncated"),
        "directory": (str(tmp_path / "folder"), "is a directory"),
        "unknown-dialect": ("nosuchdb://x", "unknown or unavailable database kind 'nosuchdb'"),
    }


@pytest.mark.parametrize(
    "case", ["text", "png", "truncated", "header-only", "directory", "unknown-dialect"]
)
@pytest.mark.parametrize("command", [["store", "info"], ["evaluate", BENCH, "-m", SPEC]])
def test_a_bad_store_is_one_line_and_left_as_it_was(
    tmp_path: Path, case: str, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative default (./images) would land here
    url, expected = _bad_stores(tmp_path)[case]
    before = _snapshot(tmp_path)
    result = runner.invoke(app, [*command, "--store", url])
    assert result.exit_code == 2, result.output
    assert expected in _one_error_line(result.output)
    assert _snapshot(tmp_path) == before


def test_importing_a_directory_says_so(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    args = ["import", str(tmp_path / "data"), "-f", "jsonl", "--store", str(tmp_path / "s.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "is a directory, expected a dataset file" in _one_error_line(result.output)
    assert not (tmp_path / "s.db").exists()


def _read_only_case(tmp_path: Path) -> tuple[Path, dict[str, tuple[str, int]]]:
    db = _make_store(tmp_path / "s.db")
    return db, _snapshot(tmp_path)


def _check_read_only(tmp_path: Path, db: Path, before: dict[str, tuple[str, int]]) -> None:
    result = runner.invoke(app, ["store", "info", "--json", "--store", str(db)])
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["read_only"] is True
    assert info["tables"]["items"] == 5
    result = runner.invoke(app, ["evaluate", BENCH, "-m", SPEC, "--store", str(db)])
    assert result.exit_code == 2
    assert "is read-only" in _one_error_line(result.output)
    assert _snapshot(tmp_path) == before  # no -wal/-shm, no tables, no rows


def test_a_store_we_may_not_write_opens_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root may write any file, so permission bits cannot make the store read-only here: the
    # permission check answers "no" instead, and SQLite itself then refuses every write.
    db, before = _read_only_case(tmp_path)
    monkeypatch.setattr("lvlmbench.store._opening.writable", lambda path: False)
    _check_read_only(tmp_path, db, before)
    store = Store.open(str(db))
    # Past our guard: the connection itself is read-only.
    with pytest.raises(Exception, match="readonly"), store.engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE intruder (x INTEGER)")
    store.close()
    assert _snapshot(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_a_chmod_444_store_in_a_read_only_directory_can_be_inspected(tmp_path: Path) -> None:
    db, before = _read_only_case(tmp_path)
    db.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        _check_read_only(tmp_path, db, before)
    finally:
        tmp_path.chmod(0o755)
