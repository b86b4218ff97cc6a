"""With --epochs the item is the unit: 24 items asked 4 times each are 24 observations, not 96.

The CLI table, ``evaluate --json``, ``summary.json``, ``leaderboard.csv``, the web leaderboard
page and its JSON API all show one figure and one interval for the same store, and the interval
is over the 24 items (worked by hand below), not over the 96 answers.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from cli_runs import evaluate_json
from fastapi.testclient import TestClient
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import Response
from lvlmbench.web import WebSettings, create_app

BENCH = "quiz"
MODEL = "llava-7b"  # an imported player: scored from the store, never run
EPOCHS = 4

# Hand-worked 95% interval for 25 right of 24 items × 4 epochs. Each item's 4 answers average
# to its score: 0.5 (items 0-5), 0.25 (6-18), 0 (19-23); the figure is their mean,
#   p = (6·0.5 + 13·0.25) / 24 = 0.260417 (every item has 4 answers, so 25/96 too).
# The items stand alone (no shared source) and their scores are not 0/1, so the interval is
# Student's t over the 24 items (stats.mean_interval; CR1 with one item per cluster):
#   Σ(y − p)² = 6·0.239583² + 13·0.010417² + 5·0.260417² = 0.684896
#   var = 24/23 · 0.684896 / 24² = 0.00124075, se = 0.0352243
#   t(0.975, 23 df) = 2.068658, half = 0.0728671
#     → 0.187550 – 0.333284, i.e. 18.8 – 33.3 %
# Before (main): Wilson over the 24 items as if each were one 0/1 answer, 0.127138 – 0.459811
# (12.7 – 46.0 %): too wide, as averaging 4 epochs makes an item's score vary less. Over the
# 96 answers (the older figure) it was 0.183058 – 0.356212, and √4 too narrow in principle.
ACCURACY, LOW, HIGH = 25 / 96, 0.187550, 0.333284


def _right_answers(index: int) -> int:
    """How many of item ``index``'s 4 answers are right: 2 for items 0-5, 1 for 6-18, 0 for
    19-23 (6·2 + 13·1 = 25)."""
    return 2 if index < 6 else 1 if index < 19 else 0


def _store(tmp_path: Path) -> Path:
    db = write_quiz(tmp_path / "quiz.db", BENCH, 24)
    store = Store.open(str(db))
    try:
        items = sorted(iter_items(store, BENCH), key=lambda item: item.id)
        responses = []
        for index, item in enumerate(items):
            assert item.answer is not None
            wrong = "B" if item.answer == "A" else "A"
            for epoch in range(EPOCHS):
                said = item.answer if epoch < _right_answers(index) else wrong
                # The last epoch of item 0 was cut at the token limit, its letter still read.
                cut = index == 0 and epoch == EPOCHS - 1
                responses.append(
                    Response(
                        item_id=item.id,
                        model=MODEL,
                        text=said,
                        extracted=said,
                        epoch=epoch,
                        truncated=cut,
                    )
                )
        put_responses(store, responses)
    finally:
        store.close()
    return db


def test_cli_interval_is_over_items(tmp_path: Path) -> None:
    db = _store(tmp_path)
    report = evaluate_json(db, BENCH, "--model", MODEL)
    [overall] = report["overall"]
    assert overall["accuracy"] == pytest.approx(ACCURACY)
    assert (overall["ci_low"], overall["ci_high"]) == pytest.approx((LOW, HIGH), abs=1e-6)
    assert (overall["items"], overall["epochs"], overall["answered"]) == (24, 4.0, 96)
    assert (overall["correct"], overall["truncated"]) == (25, 1)
    assert overall["coverage"]["complete"] and overall["coverage"]["expected"] == 3
    # Each level's cell is over its own 8 items, and they add up to the overall's 24.
    assert sorted(r["items"] for r in report["accuracy"]) == [8, 8, 8]
    shown = CliRunner().invoke(app, ["evaluate", BENCH, "--model", MODEL, "--store", str(db)])
    assert shown.exit_code == 0, shown.output
    row = next(line for line in shown.output.splitlines() if MODEL in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    # easy, medium, hard, overall, items, epochs, answers, unparseable, failed, truncated
    assert cells[4:8] == ["26.0 (19–33)", "24", "4", "96"]


def _page_overall(html: str) -> tuple[str, str]:
    found = re.search(
        rf'data-model="{MODEL}" data-facet="overall" data-group="all">(?:<a [^>]+>)?'
        r'([0-9.]+)(?:</a>)?</td><td class="ci">([^<]+)</td>',
        html,
    )
    assert found is not None, html[:2000]
    return found.group(1), found.group(2)


def test_cli_report_and_web_give_one_figure(tmp_path: Path) -> None:
    db = _store(tmp_path)
    [cli] = evaluate_json(db, BENCH, "--model", MODEL)["overall"]
    out = tmp_path / "out" / "report.html"
    written = CliRunner().invoke(app, ["report", "--out", str(out), "--store", str(db)])
    assert written.exit_code == 0, written.output
    [summary] = json.loads((out.parent / "summary.json").read_text())["benchmarks"]
    [row] = summary["overall"]
    with (out.parent / "leaderboard.csv").open(newline="") as handle:
        [board] = list(csv.DictReader(handle))
    store = Store.open(str(db))
    try:
        with TestClient(
            create_app(store, WebSettings()), base_url="http://127.0.0.1:8000"
        ) as client:
            api = client.get(f"/api/b/{BENCH}/leaderboard").json()
            page = client.get(f"/b/{BENCH}").text
    finally:
        store.close()
    [api_row] = api["rows"]
    [api_overall] = api["summary"]["overall"]
    percent = tuple(round(100 * cli[key], 1) for key in ("accuracy", "ci_low", "ci_high"))
    assert percent == (26.0, 18.8, 33.3)  # the hand-worked interval over the 24 items
    assert (row["accuracy"], row["ci_low"], row["ci_high"]) == percent
    assert (row["items"], row["epochs"]) == (24, 4.0)
    assert (api_overall["accuracy"], api_overall["ci_low"], api_overall["ci_high"]) == percent
    assert (api_row["accuracy"], api_row["accuracy_low"], api_row["accuracy_high"]) == percent
    board_figures = (board["accuracy"], board["accuracy_low"], board["accuracy_high"])
    assert tuple(float(v) for v in board_figures) == percent
    assert (board["items"], board["epochs"]) == ("24", "4.0")
    assert _page_overall(page) == ("26.0", "18.8–33.3")
    assert _page_overall(out.read_text()) == ("26.0", "18.8–33.3")


def test_uneven_epochs_average_within_the_item(tmp_path: Path) -> None:
    # An item answered 4 times and one answered once weigh the same: the overall is the mean
    # of the two items' scores, (3/4 + 0) / 2 = 0.375, not 3 right of 5 answers (0.6).
    db = write_quiz(tmp_path / "quiz.db", BENCH, 2)
    store = Store.open(str(db))
    try:
        first, second = sorted(iter_items(store, BENCH), key=lambda item: item.id)
        said = [first.answer, first.answer, first.answer, "D"]
        responses = [
            Response(item_id=first.id, model=MODEL, text=s, extracted=s, epoch=e)
            for e, s in enumerate(said)
        ]
        responses.append(Response(item_id=second.id, model=MODEL, text="A", extracted="A"))
        put_responses(store, responses)
    finally:
        store.close()
    [overall] = evaluate_json(db, BENCH, "--model", MODEL, "--by", "")["overall"]
    assert overall["accuracy"] == pytest.approx(0.375)
    assert (overall["items"], overall["answered"], overall["epochs"]) == (2, 5, 2.5)
