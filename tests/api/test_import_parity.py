"""`lvlmbench import` and `api.import_file` are one use case: the same file with the same
options stores the same rows and reports the same summary; options the CLI refuses, the API
refuses the same way, before a store is opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dataset_layouts import visit_single
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, iter_items
from lvlmbench.workflows import ImportOptions, InvalidOptions

runner = CliRunner()


def _stored(db: Path, benchmark: str) -> list[tuple[str, str, str | None]]:
    store = Store.open(str(db))
    try:
        return sorted((i.id, i.question, i.reference) for i in iter_items(store, benchmark))
    finally:
        store.close()


def test_cli_and_api_store_the_same_rows(tmp_path: Path) -> None:
    path = visit_single(tmp_path / "visit.csv")
    cli_db, api_db = tmp_path / "cli.db", tmp_path / "api.db"
    shown = runner.invoke(
        app, ["import", str(path), "--name", "v", "--store", str(cli_db), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    result = api.import_file(path, name="v", store=str(api_db))
    assert (result.format, result.detected, result.kind) == ("visit", True, "items")
    assert result.summary.model_dump() == json.loads(shown.output)
    assert _stored(api_db, "v") == _stored(cli_db, "v") and _stored(api_db, "v")
    again = api.import_file(ImportOptions(path, format="visit", name="v"), store=str(api_db))
    assert again.detected is False and again.summary.model_dump()["items_added"] == 0


def test_refused_options_are_refused_alike_before_a_store_is_opened(tmp_path: Path) -> None:
    path = visit_single(tmp_path / "visit.csv")
    db = tmp_path / "never.db"
    args = ["import", str(path), "--model", "m", "--store", str(db)]
    shown = runner.invoke(app, args)
    assert shown.exit_code == 2 and "--model and --strict are for prediction files" in shown.output
    with pytest.raises(InvalidOptions, match="--model and --strict are for prediction files"):
        api.import_file(path, model="m", store=str(db))
    with pytest.raises(InvalidOptions, match="no such file"):
        api.import_file(tmp_path / "missing.csv", store=str(db))
    assert not db.exists()
