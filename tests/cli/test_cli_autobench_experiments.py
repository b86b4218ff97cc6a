"""`lvlmbench experiment diversity|aspects|leakage-levels|ranks` on a tiny generated benchmark:
outputs, what is stored for the report, and bad input."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from topic_fakes import TopicBiasedExaminer
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, get_artifact

runner = CliRunner()
NAME = "tiny"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("gen") / "s.db"
    args = ["generate", "spatial understanding", "-n", "2", "-k", "2", "--per-aspect", "2"]
    args += ["--levels", "easy,hard", "--name", NAME, "--store", str(db), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def db(generated: Path, tmp_path: Path) -> str:
    copy = tmp_path / "s.db"  # through SQLite's backup API, so the WAL is included
    with (
        contextlib.closing(sqlite3.connect(generated)) as source,
        contextlib.closing(sqlite3.connect(copy)) as target,
    ):
        source.backup(target)
    shutil.copytree(generated.parent / "images", tmp_path / "images")
    return str(copy)


def _json(args: list[str]) -> object:
    result = runner.invoke(app, ["experiment", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_leakage_levels_and_ranks(db: str):
    models = ["-m", "baseline/oracle", "-m", "baseline/random"]
    rows = _json(["leakage-levels", NAME, *models, "--store", db])
    assert [r["level"] for r in rows] == ["easy", "hard"]
    easy = rows[0]
    oracle = easy["with_image"]["baseline/oracle"]
    assert oracle["accuracy"] == 1.0 and oracle["answered"] == 8  # 4 fine aspects × 2 images
    assert oracle["low"] < 1.0 == oracle["high"]  # Wilson: n = 8 leaves room below
    assert set(easy["description_only"]) == {"baseline/oracle", "baseline/random"}
    ranks = _json(["ranks", NAME, "--store", db])
    firsts = {r["level"]: r["model"] for r in ranks if r["rank"] == 1}
    assert firsts == {"easy": "baseline/oracle", "hard": "baseline/oracle"}


def test_ranks_without_answers_is_exit_2(db: str):
    result = runner.invoke(app, ["experiment", "ranks", NAME, "--store", db])
    assert result.exit_code == 2 and "lvlmbench evaluate" in result.output


def test_aspect_grid_is_printed_and_stored(db: str):
    data = _json(["aspects", NAME, "--n", "1,2", "--m", "2", "--store", db])
    assert [(r["n"], r["m"], r["fine"]) for r in data["grid"]] == [(1, 2, 2), (2, 2, 4)]
    store = Store.open(db)
    assert get_artifact(store, NAME, "experiment", "aspects") == data
    store.close()
    bad = runner.invoke(app, ["experiment", "aspects", NAME, "--n", "0", "--store", db])
    assert bad.exit_code == 2 and "--n" in bad.output


def test_diversity_needs_a_model_examiner(db: str):
    result = runner.invoke(
        app, ["experiment", "diversity", NAME, "--examiner", "procedural", "--store", db]
    )
    assert result.exit_code == 2 and "writes no topic words" in result.output
    bad = runner.invoke(
        app, ["experiment", "diversity", NAME, "--examiner", "x/y", "--exclude", "i^2"]
    )
    assert bad.exit_code == 2 and "--exclude" in bad.output


def test_diversity_with_a_topic_biased_examiner(db: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(
        "lvlmbench.cli.experiment_design.load_chat_model", lambda spec: TopicBiasedExaminer()
    )
    args = ["diversity", NAME, "--examiner", "fake/topic-biased", "--count", "6", "--store", db]
    data = _json(args)
    assert len(data["groups"]) == 4 * 2 * 2  # fine aspects × levels × conditions
    diff = data["summary"]["difference"]
    assert diff["distinct_topics"]["mean"] > 0 and diff["top_topic_share"]["mean"] < 0
    assert data["settings"]["bans"] == "per-round" and data["settings"]["exclude"] == "i"
    store = Store.open(db)
    assert get_artifact(store, NAME, "experiment", "diversity") == data
    store.close()
    table = runner.invoke(app, ["experiment", *args])
    assert table.exit_code == 0 and "with − without" in table.output
