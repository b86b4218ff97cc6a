"""`lvlmbench export` and `api.export` are one use case behind two front doors: every option of
the command has its API counterpart with the same default, the same export made both ways
writes the same files, and options one refuses the other refuses with the same message."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer.main
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.workflows import InvalidOptions

BENCH = "quiz"
runner = CliRunner()


def test_every_export_option_has_its_api_counterpart_with_the_same_default() -> None:
    params = {p.name: p for p in typer.main.get_command(app).commands["export"].params}  # type: ignore[attr-defined]
    api_params = inspect.signature(api.export).parameters
    assert set(params) == set(api_params)
    for name, param in params.items():
        default = api_params[name].default
        if default is inspect.Parameter.empty or name == "store":
            continue
        assert str(default) == str(param.default), name  # the CLI's format is an enum


def test_the_same_export_both_ways_writes_the_same_items(tmp_path: Path) -> None:
    db = str(write_quiz(tmp_path / "s.db", BENCH, 5))
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    result = runner.invoke(
        app, ["export", BENCH, "--out", str(cli_out), "--no-parquet", "--store", db]
    )
    assert result.exit_code == 0, result.output
    written = api.export(BENCH, api_out, parquet=False, store=db)
    assert written.jsonl == api_out / "items.jsonl"
    cli_rows = (cli_out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    api_rows = (api_out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(api_rows) == 5 and api_rows == cli_rows


def test_a_prediction_export_without_a_model_is_refused_alike(tmp_path: Path) -> None:
    missing = tmp_path / "never.db"
    args = ["export", BENCH, "--out", str(tmp_path / "p.xlsx"), "-f", "vlmeval"]
    result = runner.invoke(app, [*args, "--store", str(missing)])
    assert result.exit_code == 2
    assert "--model names the model" in " ".join(result.output.split())
    with pytest.raises(InvalidOptions, match="--model names the model"):
        api.export(BENCH, tmp_path / "p.xlsx", format="vlmeval", store=missing)
    assert not missing.exists()  # refused before any store was opened or created
