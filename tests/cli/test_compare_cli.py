"""`lvlmbench compare` and `lvlmbench power` on a store worked by hand: the printed cells, the
--json fields every figure carries (estimator, cluster, adjustment, items, excluded), and exit
code 2 with one clear line for what cannot be compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_store import write_choice_store
from typer.testing import CliRunner

from lvlmbench.cli import app

# 20 items (0-9 easy, 10-19 hard). A right on all; B wrong on easy 4-9 and hard 19;
# C: item 0 over two epochs (right, wrong), 1-9 right, 10-18 wrong, 19 unanswered.
A = [1] * 20
B = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0] + [1] * 9 + [0]
C = [[1, 0]] + [1] * 9 + [0] * 9 + [None]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return write_choice_store(tmp_path / "s.db", {"a": A, "b": B, "c": C})


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_the_table_prints_the_hand_worked_figures(db: Path) -> None:
    code, out = _run(
        "compare", "quiz", "-m", "a", "-m", "b", "--by", "difficulty", "--store", str(db)
    )
    assert code == 0, out
    lines = [line for line in out.splitlines() if "a vs b" in line]
    assert len(lines) == 3  # overall, easy, hard
    # Overall: 100 vs 65 %, +35 pp, paired t interval 0.35 ± 2.093·0.10942, exact McNemar 7/0
    # (p = 2·0.5^7 = 0.0156), Holm over three p-values (0.0156·3 = 0.0469).
    assert all(
        text in lines[0]
        for text in ("100.0", "65.0", "+35.0 pp", "+12.1 … +57.9", "0.0156", "0.0469")
    )
    assert "McNemar exact 7/0" in lines[0] and "20 (20)" in lines[0]
    assert "+60.0 pp" in lines[1] and "0.0312" in lines[1] and "0.0625" in lines[1]
    assert "p-values of the whole table adjusted by Holm" in " ".join(out.split())


def test_json_names_estimator_cluster_adjustment_items_and_exclusions(db: Path) -> None:
    code, out = _run(
        "compare",
        "quiz",
        "-m",
        "a",
        "-m",
        "c",
        "--baseline",
        "b",
        "--adjust",
        "bh",
        "--json",
        "--store",
        str(db),
    )
    assert code == 0, out
    data = json.loads(out)
    assert (data["metric"], data["cluster"], data["adjustment"], data["baseline"]) == (
        "accuracy",
        "item",
        "bh",
        "b",
    )
    a_row, c_row = data["rows"]
    assert (a_row["model_a"], a_row["model_b"], a_row["group"]) == ("a", "b", "all")
    assert a_row["estimator"] == "clustered-t" and a_row["test"] == "mcnemar-exact"
    assert a_row["discordant"] == [7, 0] and a_row["p_value"] == pytest.approx(0.015625)
    # C vs B: 19 items in common (B's item 19 excluded); C's item 0 is the mean of its epochs.
    assert (c_row["n_items"], c_row["n_excluded"], c_row["only_b"]) == (19, 1, 1)
    assert c_row["difference"] == pytest.approx(-3.5 / 19)
    assert c_row["estimator"] == "paired-clustered-t" and c_row["cluster"] == "item"
    assert all(row["adjustment"] == "bh" for row in data["rows"])
    ranked = sorted([a_row["p_value"], c_row["p_value"]])
    # BH with two: the smaller ×2, the larger ×1, then made monotone.
    assert sorted([a_row["adjusted_p"], c_row["adjusted_p"]]) == pytest.approx(
        [min(ranked[0] * 2, ranked[1]), ranked[1]]
    )


def test_power_says_how_many_items_the_comparison_needs(db: Path) -> None:
    code, out = _run(
        "power", "quiz", "-m", "a", "-m", "b", "--difference", "0.1", "--store", str(db)
    )
    assert code == 0, out
    # n·Var = 20 · 0.10942² = 0.2395; (1.96 + 0.8416)² · 0.2395 / 0.1² = 188 items, 168 more.
    assert "188 (168)" in out
    code, out = _run(
        "power", "quiz", "-m", "a", "-m", "b", "--difference", "0.1", "--json", "--store", str(db)
    )
    plan = json.loads(out)["rows"][0]["power"]
    assert (plan["items_needed"], plan["items_now"], plan["more_needed"]) == (188, 20, 168)
    assert (plan["alpha"], plan["power"]) == (0.05, 0.8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "quiz", "-m", "a"], "compare needs at least two different models"),
        (["compare", "nope", "-m", "a", "-m", "b"], "no benchmark 'nope'"),
        (["compare", "quiz", "-m", "a", "-m", "zed"], "'zed' has no scored accuracy on 'quiz'"),
        (["compare", "quiz", "-m", "a", "-m", "b", "--adjust", "x"], "--adjust 'x'"),
        (["compare", "quiz", "-m", "a", "-m", "b", "--by", "aspect"], "unknown facet 'aspect'"),
        (["power", "quiz", "-m", "a", "-m", "b", "--difference", "-1"], "must be positive"),
    ],
)
def test_what_cannot_be_compared_exits_2(db: Path, args: list[str], message: str) -> None:
    code, out = _run(*args, "--store", str(db))
    assert code == 2
    assert message in " ".join(out.split())
    assert "Traceback" not in out
