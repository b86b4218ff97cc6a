"""Finding things: `lvlmbench ls`, "did you mean" for benchmarks and stored models,
LVLMBENCH_STORE as the default store, no empty store left behind by a failing command,
`evaluate`'s overall column, and `generate`'s -k (-m means model everywhere)."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.cli.demo import next_commands

runner = CliRunner()
NAME = "spatial-understanding-s0"
MODELS = ["-m", "baseline/random", "-m", "baseline/oracle"]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny generated benchmark (1 × 2 fine aspects, easy and hard) both baselines answered."""
    db = tmp_path_factory.mktemp("finding") / "s.db"
    args = ["generate", "spatial understanding", "-n", "1", "-k", "2", "--per-aspect", "1"]
    made = runner.invoke(app, [*args, "--levels", "easy,hard", "--store", str(db), "--json"])
    assert made.exit_code == 0, made.output
    ran = runner.invoke(app, ["evaluate", NAME, *MODELS, "--store", str(db), "--json"])
    assert ran.exit_code == 0, ran.output
    return db


@pytest.fixture
def db(evaluated: Path, tmp_path: Path) -> Path:
    target = tmp_path / "s.db"
    with (
        contextlib.closing(sqlite3.connect(evaluated)) as source,
        contextlib.closing(sqlite3.connect(target)) as copy,
    ):
        source.backup(copy)
    shutil.copytree(evaluated.parent / "images", tmp_path / "images")
    return target


def test_ls_lists_benchmarks_items_and_models(db: Path) -> None:
    listed = runner.invoke(app, ["ls", "--store", str(db), "--json"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == [
        {
            "name": NAME,
            "kind": "autobench",
            "items": 4,  # 1 general × 2 fine aspects × 2 levels × 1 image
            "models": ["baseline/oracle", "baseline/random"],
            "judges": [],
        }
    ]
    table = runner.invoke(app, ["ls", "--store", str(db)])
    assert table.exit_code == 0, table.output
    row = next(line for line in table.stdout.splitlines() if NAME in line)
    assert re.search(rf"{NAME}\s*│\s*autobench\s*│\s*4\s*│\s*baseline/oracle", row), row
    # `store info` still works beside it.
    assert runner.invoke(app, ["store", "info", "--store", str(db)]).exit_code == 0


def test_lvlmbench_store_sets_the_default_store(
    db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path / "images")  # no lvlmbench.db here
    monkeypatch.setenv("LVLMBENCH_STORE", str(db))
    listed = runner.invoke(app, ["ls", "--json"])
    assert listed.exit_code == 0, listed.output
    assert [b["name"] for b in json.loads(listed.stdout)] == [NAME]
    assert not (tmp_path / "images" / "lvlmbench.db").exists()


def test_evaluate_prints_an_overall_column(db: Path) -> None:
    shown = runner.invoke(app, ["evaluate", NAME, *MODELS, "--store", str(db)])
    assert shown.exit_code == 0, shown.output
    header = next(line for line in shown.stdout.splitlines() if "overall" in line)
    assert header.index("easy") < header.index("hard") < header.index("overall")
    oracle = next(line for line in shown.stdout.splitlines() if "baseline/oracle" in line)
    # Per level 2 of 2 right; pooled 4 of 4, whose Wilson interval is narrower: 51-100.
    assert re.search(r"100\.0 \(34–100\).*100\.0 \(34–100\).*100\.0 \(51–100\)", oracle), oracle
    data = json.loads(
        runner.invoke(app, ["evaluate", NAME, *MODELS, "--store", str(db), "--json"]).stdout
    )
    pooled = {row["model"]: row for row in data["overall"]}
    for model, row in pooled.items():
        mine = [r for r in data["accuracy"] if r["model"] == model]
        assert row["correct"] == sum(r["correct"] for r in mine)
        assert row["answered"] == sum(r["answered"] for r in mine) == 4


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["evaluate", "spatial-understandin-s0", "-m", "baseline/random"],
            f"did you mean '{NAME}'",
        ),
        (["report", "--benchmark", "spatial-understanding-s1"], f"did you mean '{NAME}'"),
        (["rate", "Spatial-Understanding-s0"], f"did you mean '{NAME}'"),
        (["export", "spatial-understanding", "--out", "x"], f"did you mean '{NAME}'"),
        (["evaluate", NAME, "-m", "random"], "did you mean 'baseline/random'"),
        (["evaluate", NAME, "-m", "oracle"], "did you mean 'baseline/oracle'"),
    ],
)
def test_misspelt_names_get_did_you_mean(db: Path, args: list[str], needle: str) -> None:
    before = db.stat().st_size
    result = runner.invoke(app, [*args, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert needle in result.output, result.output
    assert "`lvlmbench ls`" in result.output
    assert db.exists() and db.stat().st_size == before


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "nosuch", "-m", "baseline/random"],
        ["report"],
        ["rate", "nosuch"],
        ["judge", "pairwise", "nosuch", "-m", "baseline/random", "-j", "baseline/random"],
        ["experiment", "leakage", "nosuch", "-m", "baseline/random"],
        ["import", "missing-file.jsonl"],
        ["ls"],
        ["store", "info"],
    ],
)
def test_no_empty_store_is_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    runner.invoke(app, args)  # fails (exit 2) or only reads: either way nothing to keep
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    explicit = tmp_path / "new.db"
    runner.invoke(app, [*args, "--store", str(explicit)])
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_failing_command_keeps_a_store_that_existed(tmp_path: Path) -> None:
    empty = tmp_path / "mine.db"
    assert runner.invoke(app, ["import", "missing.jsonl", "--store", str(empty)]).exit_code == 2
    assert not empty.exists()
    # An empty store the user made on purpose beforehand is theirs: never deleted.
    with contextlib.closing(sqlite3.connect(empty)) as conn:
        conn.execute("CREATE TABLE keep (x)")
    result = runner.invoke(
        app, ["evaluate", "nosuch", "-m", "baseline/random", "--store", str(empty)]
    )
    assert result.exit_code == 2, result.output
    assert empty.exists()


def test_generate_fine_aspects_flag_is_k_not_m(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    base = ["generate", "spatial understanding", "-n", "1", "--per-aspect", "1"]
    base += ["--levels", "easy", "--store", str(db), "--json"]
    made = runner.invoke(app, [*base, "-k", "3"])
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["items"] == 3
    refused = runner.invoke(app, [*base, "-m", "3"])
    assert refused.exit_code == 2
    assert "No such option: -m" in refused.output


def test_demo_next_commands_name_its_benchmarks_and_store() -> None:
    evaluate, serve = next_commands(Path("demo out/lvlmbench.db"), [NAME, "basic-understanding-s0"])
    assert evaluate == (
        f"lvlmbench evaluate {NAME} basic-understanding-s0 "
        "-m openai/gpt-4o-mini --store 'demo out/lvlmbench.db'"
    )
    assert serve == "lvlmbench serve --store 'demo out/lvlmbench.db'"
