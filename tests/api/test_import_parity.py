"""`lvlmbench import` and `api.import_file` are one use case: the same file with the same
options stores the same rows and reports the same summary; options the CLI refuses, the API
refuses the same way, before a store is opened."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from catalog_files import isolate_caches, lab_catalog
from dataset_layouts import mmbench, visit_single
from prediction_fixtures import b64_image
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.datasets.catalog import CatalogError, cached_file, find_benchmark
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


def test_a_standard_benchmark_by_name_imports_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lvlmbench import NAME` and `api.import_file(NAME)`: the same verified copy, the same
    rows; offline with no copy, the same refusal before a store is opened."""
    isolate_caches(tmp_path, monkeypatch)
    body = mmbench(tmp_path / "source.tsv", b64_image).read_bytes()
    lab_catalog(tmp_path, monkeypatch, "http://127.0.0.1:9/Lab.tsv", hashlib.md5(body).hexdigest())
    entry = find_benchmark("Lab_Bench")
    assert entry is not None
    cached_file(entry).parent.mkdir(parents=True)
    cached_file(entry).write_bytes(body)
    cli_db, api_db = tmp_path / "cli.db", tmp_path / "api.db"
    shown = runner.invoke(app, ["import", "lab_bench", "--store", str(cli_db), "--json"])
    assert shown.exit_code == 0, shown.output
    result = api.import_file("LAB-BENCH", store=str(api_db))
    assert result.standard is not None and result.standard.path == cached_file(entry)
    assert (result.format, result.summary.benchmark) == ("vlmeval", "Lab_Bench")
    cli_summary = json.loads(shown.output)
    assert cli_summary.pop("standard")["file"] == str(cached_file(entry))
    assert result.summary.model_dump() == cli_summary
    assert _stored(api_db, "Lab_Bench") == _stored(cli_db, "Lab_Bench")
    assert len(_stored(api_db, "Lab_Bench")) == 3
    never = tmp_path / "never.db"
    with pytest.raises(CatalogError, match="MME is not on this machine and downloads are off"):
        api.import_file("mme", offline=True, store=str(never))
    refused = runner.invoke(app, ["import", "mme", "--offline", "--store", str(never)])
    assert refused.exit_code == 2 and "MME is not on this machine" in refused.output
    assert not never.exists()
