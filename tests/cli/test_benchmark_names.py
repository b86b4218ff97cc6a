"""One benchmark-name rule, checked by every command that creates a benchmark before it writes
anything (a name with '/' would be stored but unreachable in the web app)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.ids import check_benchmark_name
from lvlmbench.store import Store, list_benchmarks, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

runner = CliRunner()


@pytest.mark.parametrize(
    "name",
    ["spatial-understanding-s0", "vqa.v2@keys-even", "mmb+cn:dev_2", "空间理解-s0", "x" * 128],
)
def test_allowed_names(name: str) -> None:
    assert check_benchmark_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["a/b", "..", ".hidden", "-rf", "_x", "", "x" * 129, "a b", "a?b", "a#b", "a%2fb", "a\\b"],
)
def test_refused_names(name: str) -> None:
    with pytest.raises(ValueError, match="not allowed: 1-128 characters"):
        check_benchmark_name(name)


def _store_is_empty(db: Path) -> bool:
    store = Store.open(str(db))
    try:
        return list_benchmarks(store) == []
    finally:
        store.close()


def _jsonl(path: Path) -> Path:
    rows = [{"id": "a", "question": "Why?", "reference": "because"}]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_import_refuses_a_bad_name_and_writes_nothing(tmp_path: Path) -> None:
    source, db = _jsonl(tmp_path / "set.jsonl"), tmp_path / "s.db"
    args = ["import", str(source), "-f", "jsonl", "--store", str(db)]
    result = runner.invoke(app, [*args, "--name", "team/set"])
    assert result.exit_code == 2
    assert "'team/set' is not allowed" in " ".join(result.output.split())
    assert _store_is_empty(db)
    assert runner.invoke(app, [*args, "--name", "team-set"]).exit_code == 0


def test_import_refuses_a_bad_file_stem_and_asks_for_a_name(tmp_path: Path) -> None:
    source, db = _jsonl(tmp_path / ".hidden.jsonl"), tmp_path / "s.db"
    result = runner.invoke(app, ["import", str(source), "-f", "jsonl", "--store", str(db)])
    assert result.exit_code == 2
    assert "choose one with --name" in " ".join(result.output.split())
    assert _store_is_empty(db)


def test_generate_refuses_a_bad_name_before_any_work(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    args = ["generate", "spatial understanding", "--name", "../escape", "--store", str(db)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "'../escape' is not allowed" in result.output
    assert _store_is_empty(db)


def test_position_bias_refuses_copies_of_an_unreachable_name(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = Store.open(str(db))
    legacy = "old/bench"  # stored before names were checked
    item = BenchmarkItem(
        id="q0", benchmark=legacy, kind="mc", question="?", options={"A": "a", "B": "b"}, answer="A"
    )
    put_items(store, [item])
    put_benchmark(store, legacy, "autobench", {})
    store.close()
    args = ["experiment", "position-bias", legacy, "--model", "baseline/oracle"]
    result = runner.invoke(app, [*args, "--store", str(db)])
    assert result.exit_code == 2
    assert "'old/bench@keys-A-s0' is not allowed" in " ".join(result.output.split())
    store = Store.open(str(db))
    try:
        assert [b.name for b in list_benchmarks(store)] == [legacy]
    finally:
        store.close()
