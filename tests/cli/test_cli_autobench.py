"""The AutoBench-V commands end to end on the embedded default (procedural examiner and
renderer, baseline examinees): generate, evaluate, experiment, demo, and what bad input does."""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, get_benchmark, iter_items, iter_responses, list_stored

runner = CliRunner()
CAPABILITY = "spatial understanding"
NAME = "spatial-understanding-s0"


@dataclass(frozen=True)
class Generated:
    db: Path
    report: dict[str, Any]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """One tiny benchmark (2 general × 2 fine aspects, 1 image per aspect and level, easy and
    hard), generated once for the module; tests work on copies."""
    db = tmp_path_factory.mktemp("gen") / "s.db"
    args = ["generate", CAPABILITY, "-n", "2", "-k", "2", "--per-aspect", "1"]
    args += ["--levels", "easy,hard", "--seed", "0", "--store", str(db), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return Generated(db, json.loads(result.stdout))


@pytest.fixture
def store_copy(generated: Generated, tmp_path: Path) -> Path:
    """A private copy of the generated store (database through SQLite's backup API, so the WAL
    is included, plus its image directory)."""
    target = tmp_path / "s.db"
    with (
        contextlib.closing(sqlite3.connect(generated.db)) as source,
        contextlib.closing(sqlite3.connect(target)) as copy,
    ):
        source.backup(copy)
    shutil.copytree(generated.db.parent / "images", tmp_path / "images")
    return target


@pytest.fixture
def opened(store_copy: Path) -> Iterator[Store]:
    store = Store.open(str(store_copy))
    yield store
    store.close()


def _counts(db: Path) -> dict[str, int]:
    """Rows per table (straight from SQLite) and image files beside the database."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        counts = {n: conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}
    counts["image files"] = len(list((db.parent / "images").glob("*.png")))
    return counts


# -- generate ---------------------------------------------------------------------------------


def test_generate_stores_a_balanced_benchmark(generated: Generated, opened: Store) -> None:
    report = generated.report
    assert report["benchmark"] == NAME
    settings = report["settings"]
    assert (settings["n"], settings["m"], settings["per_aspect"]) == (2, 2, 1)
    assert settings["levels"] == ["easy", "hard"]
    plan = report["plan"]["aspects"]
    assert len(plan) == 4 and len({(a["general"], a["fine"]) for a in plan}) == 4
    assert {a["capability"] for a in plan} == {CAPABILITY}
    check = report["self_check"]
    assert check["units"] == 4 * 2 * 1
    assert report["items"] == check["units"] - check["dropped"] > 0

    items = list(iter_items(opened, NAME))
    assert len(items) == report["items"]
    assert {item.meta["difficulty"] for item in items} <= {"easy", "hard"}
    assert {item.meta["capability"] for item in items} == {CAPABILITY}
    assert {item.meta["fine_aspect"] for item in items} <= {a["fine"] for a in plan}
    assert all(item.images and opened.image_path(item.images[0]).exists() for item in items)
    # Answer letters of the multiple-choice items are spread exactly evenly.
    letters = Counter(item.answer for item in items if item.kind == "mc")
    assert dict(report["answer_letters"]) == {k: letters.get(k, 0) for k in "ABCD"}
    assert max(letters.values()) - min(letters.get(k, 0) for k in "ABCD") <= 1


def test_generate_again_resumes_without_new_work(generated: Generated, store_copy: Path) -> None:
    before = _counts(store_copy)
    args = ["generate", CAPABILITY, "-n", "2", "-k", "2", "--per-aspect", "1"]
    args += ["--levels", "easy,hard", "--store", str(store_copy), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["items"] == generated.report["items"]
    after = _counts(store_copy)
    assert after["items"] == before["items"] and after["images"] == before["images"]


# -- evaluate ---------------------------------------------------------------------------------


def test_evaluate_prints_accuracy_and_oracle_is_perfect(
    generated: Generated, store_copy: Path
) -> None:
    n_items: int = generated.report["items"]
    args = ["evaluate", NAME, "--model", "baseline/oracle", "--model", "baseline/random"]
    result = runner.invoke(app, [*args, "--store", str(store_copy)])
    assert result.exit_code == 0, result.output
    assert f"{NAME}: accuracy % with 95% CI" in result.output
    oracle_line = next(line for line in result.output.splitlines() if "baseline/oracle │" in line)
    # One cell per difficulty level and the overall column, all 100.0, and items = every item.
    cells = [c.strip() for c in oracle_line.split("│")]
    assert oracle_line.count("100.0") == 3 and str(n_items) in cells
    assert f"baseline/oracle: {n_items} ok, 0 unparseable, 0 refused, 0 failed" in result.output

    # Again with --json: nothing is asked twice and the numbers come back exactly.
    again = runner.invoke(
        app, [*args, "--by", "capability,difficulty", "--json", "--store", str(store_copy)]
    )
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert [(r["model"], r["skipped"], r["ok"]) for r in data["runs"]] == [
        ("baseline/oracle", n_items, 0),
        ("baseline/random", n_items, 0),
    ]
    rows = data["accuracy"]
    assert {(r["capability"], r["difficulty"]) for r in rows} <= {
        (CAPABILITY, "easy"),
        (CAPABILITY, "hard"),
    }
    for model in ("baseline/oracle", "baseline/random"):
        mine = [r for r in rows if r["model"] == model]
        assert sum(r["answered"] for r in mine) == n_items
        assert all(r["failed"] == 0 and r["unparseable"] == 0 for r in mine)
    oracle = [r for r in rows if r["model"] == "baseline/oracle"]
    assert all(r["accuracy"] == 1.0 and r["correct"] == r["answered"] for r in oracle)

    store = Store.open(str(store_copy))
    stored = list(iter_responses(store, model="baseline/random", variant="default"))
    assert len(stored) == n_items
    items = {item.id: item for item in iter_items(store, NAME)}
    random_correct = sum(r.extracted == items[r.item_id].answer for r in stored)
    random_rows = [r for r in rows if r["model"] == "baseline/random"]
    assert sum(r["correct"] for r in random_rows) == random_correct
    store.close()


# -- experiments ------------------------------------------------------------------------------


def test_experiment_leakage_prints_its_figures(generated: Generated, store_copy: Path) -> None:
    n_items: int = generated.report["items"]
    args = ["experiment", "leakage", NAME, "--model", "baseline/oracle"]
    args += ["--model", "baseline/prior", "--store", str(store_copy)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"{NAME}: answer leakage (accuracy %)" in result.output
    assert "std of description-only accuracy across models" in result.output

    data = json.loads(runner.invoke(app, [*args, "--question-only", "--json"]).stdout)
    figures = {f["model"]: f for f in data["figures"]}
    assert set(figures) == {"baseline/oracle", "baseline/prior"}
    oracle = figures["baseline/oracle"]
    # The oracle recognises the prompt behind a description too: perfect everywhere.
    assert (oracle["with_image"], oracle["description_only"], oracle["drop"]) == (1.0, 1.0, 0.0)
    assert oracle["question_only"] == 1.0
    prior = figures["baseline/prior"]
    assert prior["drop"] == pytest.approx(prior["with_image"] - prior["description_only"])
    spread = abs(oracle["description_only"] - prior["description_only"]) / 2
    assert data["description_only_std"] == pytest.approx(spread)

    store = Store.open(str(store_copy))
    for variant in ("default", "no-image", "question-only"):
        answered = list(iter_responses(store, model="baseline/prior", variant=variant))
        assert len(answered) == n_items, variant
    items = {item.id: item for item in iter_items(store, NAME)}
    no_image = list(iter_responses(store, model="baseline/prior", variant="no-image"))
    right = sum(r.extracted == items[r.item_id].answer for r in no_image)
    assert prior["description_only"] == pytest.approx(right / n_items)
    store.close()


def test_experiment_position_bias_prints_its_figures(
    generated: Generated, store_copy: Path
) -> None:
    args = ["experiment", "position-bias", NAME, "--model", "baseline/oracle"]
    args += ["--model", "baseline/prior", "--store", str(store_copy)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"{NAME}: position bias" in result.output
    assert "+0.0%" in result.output  # the oracle is never moved by key positions
    assert "multiple-choice items, seed 0" in result.output and "95% CI" in result.output

    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert [(f["model"], f["target"]) for f in data] == [
        ("baseline/oracle", "A"),
        ("baseline/prior", "A"),
        ("baseline/oracle", "D"),
        ("baseline/prior", "D"),
    ]
    store = Store.open(str(store_copy))
    names = {b.name: b.items for b in list_stored(store)}
    n_items: int = generated.report["items"]
    assert {f"{NAME}@keys-{t}-s0" for t in ("A", "D", "even")} <= set(names)
    for target in ("A", "D"):
        copy = f"{NAME}@keys-{target}-s0"
        assert names[copy] == n_items
        keys = {item.answer for item in iter_items(store, copy) if item.kind == "mc"}
        assert keys == {target}

    n_mc = sum(item.kind == "mc" for item in iter_items(store, NAME))
    assert 0 < n_mc < n_items  # true/false items exist, and are left out of the rates

    def accuracy(benchmark: str, model: str) -> float:
        """Accuracy on the multiple-choice items only (the only ones a copy moves)."""
        items = {item.id: item for item in iter_items(store, benchmark) if item.kind == "mc"}
        answers = [r for r in iter_responses(store, model=model) if r.item_id in items]
        assert len(answers) == n_mc
        right = sum(r.extracted == items[r.item_id].answer for r in answers)
        return right / n_mc

    for figure in data:
        assert figure["n"] == n_mc and figure["seed"] == 0
        assert figure["low"] <= figure["bias_rate"] <= figure["high"]
        even = accuracy(f"{NAME}@keys-even-s0", figure["model"])
        condition = accuracy(f"{NAME}@keys-{figure['target']}-s0", figure["model"])
        assert figure["accuracy"] == pytest.approx(condition)
        assert figure["even"] == pytest.approx(even)
        assert figure["bias_rate"] == pytest.approx((condition - even) / even)
        if figure["model"] == "baseline/oracle":
            assert (figure["accuracy"], figure["bias_rate"]) == (1.0, 0.0)
    store.close()


# -- demo -------------------------------------------------------------------------------------


def test_demo_writes_a_leaderboard_consistent_with_its_store(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--per-aspect", "1", "--capability", CAPABILITY]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "accuracy % by capability (95% CI)" in result.output
    assert "demo finished" in result.output
    # It ends with the commands from here to one's own model, naming its store and benchmarks.
    assert f"lvlmbench evaluate {NAME} -m " in result.output
    assert f"lvlmbench serve --store {out / 'lvlmbench.db'}" in result.output
    # The experiments print their figures, not only how long they took.
    flat = " ".join(result.output.split())
    assert f"{NAME}: position bias (multiple-choice items, seed 0)" in flat
    assert f"{NAME}: answer leakage (accuracy %)" in flat
    # They ran beside the evaluation, and every re-keyed copy was answered by every examinee
    # before their figures were printed (the demo waits for them).
    assert f"experiments on {NAME} (position bias, leakage) in " in flat
    assert "beside the evaluation (waited" in flat
    for name in ("accuracy_by_group.csv", "accuracy_by_group.md", "summary.json", "lvlmbench.db"):
        assert (out / name).is_file(), name
    # One leaderboard.csv schema: the report's, beside report.html; none beside the store.
    assert not (out / "leaderboard.csv").exists()
    assert (out / "report" / "leaderboard.csv").is_file()

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["benchmarks"] == [NAME]
    models = ["baseline/random", "baseline/prior", "baseline/pixels", "baseline/oracle"]
    assert summary["models"] == models
    rows = summary["leaderboard"]
    with (out / "accuracy_by_group.csv").open(encoding="utf-8", newline="") as source:
        assert list(csv.DictReader(source)) == [{k: str(v) for k, v in r.items()} for r in rows]
    md_lines = (out / "accuracy_by_group.md").read_text(encoding="utf-8").splitlines()
    assert len(md_lines) == 2 + len(rows)

    store = Store.open(str(out / "lvlmbench.db"))
    assert store.images_dir == out / "images"
    items = list(iter_items(store, NAME))
    assert items and get_benchmark(store, NAME) is not None
    for model in models:
        mine = [r for r in rows if r["model"] == model]
        # Every item is in exactly one (general, fine, difficulty) cell of every model.
        assert sum(r["answered"] for r in mine) == len(items), model
        cells = Counter((r["general_aspect"], r["fine_aspect"], r["difficulty"]) for r in mine)
        assert max(cells.values()) == 1
        by_id = {item.id: item for item in items}
        # The store also holds the demo's open-ended benchmark; keep this benchmark's answers.
        stored = [
            r for r in iter_responses(store, model=model, variant="default") if r.item_id in by_id
        ]
        assert len(stored) == len(items)
        right = sum(r.extracted == by_id[r.item_id].answer for r in stored)
        assert sum(r["correct"] for r in mine) == right
    oracle = [r for r in rows if r["model"] == "baseline/oracle"]
    assert all(r["accuracy"] == 100.0 and r["ci_high"] == 100.0 for r in oracle)
    assert {r["capability"] for r in rows} == {CAPABILITY}
    # The open-ended flow ran too: its items were answered and judged by the text metrics.
    assert "open-ended (open-ended-s0)" in result.output
    open_items = list(iter_items(store, "open-ended-s0"))
    assert open_items and all(item.kind == "open" for item in open_items)
    store.close()


# -- bad input: exit 2, one line naming what is wrong, the store untouched --------------------


def _assert_exit_2(args: list[str], *needles: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    for needle in needles:
        assert needle in result.output, (needle, result.output)
    assert "Traceback" not in result.output


def test_demo_with_unknown_capability(store_copy: Path) -> None:
    # An earlier demo's store in the output directory must survive a bad re-run.
    out = store_copy.parent
    shutil.copyfile(store_copy, out / "lvlmbench.db")
    before = _counts(out / "lvlmbench.db")
    assert before["items"] > 0
    _assert_exit_2(
        ["demo", "--out", str(out), "--capability", "juggling"], "--capability 'juggling'"
    )
    assert _counts(out / "lvlmbench.db") == before
    fresh = out / "fresh"
    _assert_exit_2(["demo", "--out", str(fresh), "--capability", "juggling"], "juggling")
    assert not fresh.exists()


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--levels", "easy,extreme", "--levels 'easy,extreme'"),
        ("--levels", ",", "--levels ','"),
        ("--zeta", "hard=1.5", "--zeta 'hard=1.5'"),
        ("--zeta", "hard=high", "--zeta 'hard=high'"),
        ("--zeta", "extreme=0.5", "--zeta 'extreme=0.5'"),
        ("--mode", "video", "--mode 'video'"),
    ],
)
def test_generate_with_bad_option(store_copy: Path, option: str, value: str, needle: str) -> None:
    before = _counts(store_copy)
    args = ["generate", CAPABILITY, "-n", "1", "--fine-aspects", "1", "--per-aspect", "1"]
    _assert_exit_2([*args, option, value, "--store", str(store_copy)], needle)
    assert _counts(store_copy) == before


def test_generate_with_mismatched_examiner_and_images(store_copy: Path) -> None:
    before = _counts(store_copy)
    args = ["generate", CAPABILITY, "--examiner", "procedural", "--images", "openai/dall-e-3"]
    _assert_exit_2([*args, "--store", str(store_copy)], "--examiner procedural")
    assert _counts(store_copy) == before


def test_evaluate_unknown_benchmark(store_copy: Path) -> None:
    before = _counts(store_copy)
    args = ["evaluate", "nosuch", "--model", "baseline/oracle", "--store", str(store_copy)]
    _assert_exit_2(args, "no benchmark 'nosuch'")
    assert _counts(store_copy) == before


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", NAME],
        ["experiment", "leakage", NAME],
        ["experiment", "position-bias", NAME],
    ],
)
def test_unknown_provider_stores_nothing(store_copy: Path, command: list[str]) -> None:
    before = _counts(store_copy)
    assert before["items"] > 0 and before["image files"] > 0
    store = ["--store", str(store_copy)]
    _assert_exit_2([*command, "--model", "nosuch/model", *store], "unknown provider 'nosuch'")
    # A good spec before the bad one is not run either: the bad one is caught first.
    models = ["--model", "baseline/prior", "--model", "nosuch/model"]
    _assert_exit_2([*command, *models, *store], "'nosuch/model'")
    assert _counts(store_copy) == before


def test_evaluate_unknown_facet_and_variant(store_copy: Path) -> None:
    before = _counts(store_copy)
    base = ["evaluate", NAME, "--model", "baseline/oracle", "--store", str(store_copy)]
    _assert_exit_2([*base, "--by", "difficulty,colour"], "--by", "'colour'")
    _assert_exit_2([*base, "--variant", "blindfold"], "--variant 'blindfold'")
    _assert_exit_2([*base, "--concurrency", "0"], "--concurrency")
    assert _counts(store_copy) == before


def test_experiments_with_bad_input(store_copy: Path) -> None:
    before = _counts(store_copy)
    store = ["--store", str(store_copy)]
    model = ["--model", "baseline/oracle"]
    _assert_exit_2(["experiment", "leakage", "nosuch", *model, *store], "no benchmark 'nosuch'")
    _assert_exit_2(
        ["experiment", "position-bias", NAME, *model, "--target", "E", *store], "--target 'E'"
    )
    _assert_exit_2(
        ["experiment", "position-bias", "nosuch", *model, *store], "no benchmark 'nosuch'"
    )
    assert _counts(store_copy) == before


def test_store_in_missing_directory(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "s.db"
    needle = f"directory {missing.parent} does not exist"
    _assert_exit_2(["generate", CAPABILITY, "--per-aspect", "1", "--store", str(missing)], needle)
    _assert_exit_2(
        ["evaluate", NAME, "--model", "baseline/oracle", "--store", str(missing)], needle
    )
    _assert_exit_2(
        ["experiment", "leakage", NAME, "--model", "baseline/oracle", "--store", str(missing)],
        needle,
    )
    _assert_exit_2(["export", NAME, "--out", str(tmp_path / "x"), "--store", str(missing)], needle)
    assert not missing.parent.exists()
