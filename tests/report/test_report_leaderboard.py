"""leaderboard.csv and leaderboard.md beside the report: one row per benchmark × model whose
figures equal the store's (accuracy with Wilson interval per level, ratings, judge scores)."""

from __future__ import annotations

import csv
from html import escape

import pytest
from report.conftest import AUTOBENCH, HOSTILE_MODEL, OPEN, SCORE_JUDGE, SCORE_REFERENCE, Built

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.judging.pairwise_report import pairwise_report
from lvlmbench.judging.score import score_report
from lvlmbench.store import iter_items, iter_judgments


def _rows(built: Built) -> list[dict[str, str]]:
    with built.files.leaderboard_csv.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source))


def _row(rows: list[dict[str, str]], benchmark: str, model: str) -> dict[str, str]:
    (row,) = [r for r in rows if r["benchmark"] == benchmark and r["model"] == model]
    return row


def test_files_sit_beside_the_html(built: Built) -> None:
    folder = built.files.html.parent
    assert built.files.leaderboard_csv == folder / "leaderboard.csv"
    assert built.files.leaderboard_md == folder / "leaderboard.md"


def test_one_row_per_benchmark_and_model(built: Built) -> None:
    rows = _rows(built)
    keys = [(r["benchmark"], r["model"]) for r in rows]
    assert len(keys) == len(set(keys))
    auto = [r["model"] for r in rows if r["benchmark"] == AUTOBENCH]
    assert sorted(auto) == sorted({r.model for r in accuracy_table(built.store, AUTOBENCH)})
    # Best first: the oracle heads the table, the hostile examinee (all unparseable) ends it.
    assert auto[0] == "baseline/oracle" and auto[-1] == HOSTILE_MODEL


def test_accuracy_columns_equal_the_store(built: Built) -> None:
    rows = _rows(built)
    for acc in accuracy_table(built.store, AUTOBENCH):
        row = _row(rows, AUTOBENCH, acc.model)
        low, high = acc.interval
        assert float(row["accuracy"]) == round(100 * acc.accuracy, 1)
        assert (float(row["accuracy_low"]), float(row["accuracy_high"])) == (
            round(100 * low, 1),
            round(100 * high, 1),
        )
        assert (int(row["correct"]), int(row["answered"])) == (acc.correct, acc.answered)
    for acc in accuracy_table(built.store, AUTOBENCH, ["difficulty"]):
        row = _row(rows, AUTOBENCH, acc.model)
        column = f"level:{acc.group[0]}"
        assert float(row[column]) == round(100 * acc.accuracy, 1)
        assert float(row[f"{column}_high"]) == round(100 * acc.interval[1], 1)
    header = list(rows[0])
    levels = [c for c in header if c.startswith("level:") and "_" not in c]
    assert levels == ["level:easy", "level:medium", "level:hard"]
    assert _row(rows, OPEN, "baseline/oracle")["accuracy"] == ""  # no choice items


def test_rating_and_score_columns_equal_the_judging_functions(built: Built) -> None:
    rows = _rows(built)
    report = pairwise_report(built.store, OPEN, "judge/fake", rounds=200)
    assert report.bradley_terry is not None
    for model, rating in report.bradley_terry.ratings.items():
        row = _row(rows, OPEN, model)
        assert float(row["bt:judge/fake"]) == pytest.approx(rating, abs=1e-4)
        assert report.online_elo is not None
        in_order = float(row["online_elo_in_order:judge/fake"])
        assert in_order == pytest.approx(report.online_elo.in_order[model], abs=0.05)
        shuffled = float(row["online_elo_shuffled_mean:judge/fake"])
        assert shuffled == pytest.approx(report.online_elo.shuffled[model], abs=0.05)
        assert row["online_elo_order:judge/fake"] == report.online_elo.order
        assert row["combine:judge/fake"] == report.combine == "majority"
    oracle = _row(rows, OPEN, "baseline/oracle")
    assert float(oracle["win_rate:judge/fake"]) == 100.0
    assert float(oracle["metric:bleu4"]) == 100.0
    items = {item.id: item for item in iter_items(built.store, OPEN)}
    scores = score_report(
        iter_judgments(built.store, judge=SCORE_JUDGE, protocol="score"), SCORE_REFERENCE, items
    )
    for model, score in scores.items():
        row = _row(rows, OPEN, model)
        assert score.overall.x100 is not None
        assert float(row[f"touchstone:{SCORE_JUDGE}"]) == pytest.approx(score.overall.x100)
        for ability, group in score.abilities.items():
            assert group.x100 is not None
            value = float(row[f"touchstone:{SCORE_JUDGE}:{ability}"])
            assert value == pytest.approx(group.x100)
    assert float(oracle["hallucination:judge/halluc"]) == 0.5


def test_markdown_tables_fold_intervals_and_escape_names(built: Built) -> None:
    text = built.files.leaderboard_md.read_text(encoding="utf-8")
    assert f"## {AUTOBENCH}" in text and f"## {OPEN}" in text
    oracle = next(a for a in accuracy_table(built.store, AUTOBENCH) if a.model == "baseline/oracle")
    low, high = oracle.interval
    # The one interval formatter: "low–high" (the demo's items are clustered by fine aspect).
    assert f"| baseline/oracle | 100.0 [{100 * low:.1f}–{100 * high:.1f}] |" in text
    assert escape(HOSTILE_MODEL, quote=False) in text and HOSTILE_MODEL not in text
    auto = text[text.index(f"## {AUTOBENCH}") :]
    header = auto.splitlines()[2]
    assert "metric:" not in header and "touchstone" not in header  # only its own columns
    assert "_low" not in text and "_high" not in text
