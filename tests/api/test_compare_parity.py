"""`api.compare` and `lvlmbench compare` are one use case: the same rows from the same
options, and the same refusals (the CLI exits 2 where the API raises InvalidOptions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_store import write_choice_store
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.workflows import InvalidOptions

A = [1] * 12
B = [1, 0] * 6
C = [0, 1, 1] * 4


def test_api_and_cli_give_the_same_table(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B, "c": C}, cluster_size=3)
    result = api.compare("quiz", ["a", "b", "c"], store=str(db), by=["difficulty"], difference=0.05)
    shown = CliRunner().invoke(
        app,
        [
            "compare",
            "quiz",
            "-m",
            "a",
            "-m",
            "b",
            "-m",
            "c",
            "--by",
            "difficulty",
            "--difference",
            "0.05",
            "--json",
            "--store",
            str(db),
        ],
    )
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.output)["rows"]
    assert len(rows) == len(result.rows) == 9  # 3 pairs × (all, easy, hard)
    for printed, row in zip(rows, result.rows, strict=True):
        assert row.paired is not None and row.plan is not None
        assert (printed["model_a"], printed["model_b"]) == (row.model_a, row.model_b)
        assert printed["difference"] == pytest.approx(row.paired.difference.estimate)
        assert printed["ci_low"] == pytest.approx(row.paired.difference.low)
        assert printed["adjusted_p"] == pytest.approx(row.adjusted_p)
        assert printed["power"]["items_needed"] == row.plan.items_needed
    assert result.cluster == "fine aspect"


def test_both_refuse_a_model_without_answers(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    with pytest.raises(InvalidOptions, match="'zed' has no scored accuracy"):
        api.compare("quiz", ["a", "zed"], store=str(db))
    shown = CliRunner().invoke(app, ["compare", "quiz", "-m", "a", "-m", "zed", "--store", str(db)])
    assert shown.exit_code == 2 and "'zed' has no scored accuracy" in shown.output
