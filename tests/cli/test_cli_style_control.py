"""`lvlmbench rate --style-control` for a model judge and for human votes, the report's
pairwise section and the web leaderboard, on a store whose judge favours long answers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from style_world import BENCH, ITEMS, JUDGE, MISSING, build_style_store
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.judging import human_report, pairwise_report
from lvlmbench.report import benchmark_html, collect, leaderboard_rows
from lvlmbench.store import Store
from lvlmbench.web import WebSettings, create_app

runner = CliRunner()
LEFT_OUT = 2 * MISSING
"""m/mid has no answer on MISSING items: its two pairs there have no text."""


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("style") / "styled.db"
    build_style_store(path).close()
    yield path


def _rate(path: Path, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["rate", BENCH, "--json", "--store", str(path), *extra])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _check_controlled(data: dict[str, Any]) -> None:
    style = data["style_control"]
    assert style["matches_without_text"] == LEFT_OUT
    assert style["matches_used"] == 3 * ITEMS - LEFT_OUT
    tokens = style["coefficients"]["tokens"]
    assert tokens["low"] > 0  # the judge's taste for length is found, with its interval
    raw = {m: v["rating"] for m, v in data["bradley_terry"].items()}
    controlled = {m: v["rating"] for m, v in style["ratings"].items()}
    assert max(raw, key=raw.__getitem__) == "m/verbose"  # raw: the long answers win
    assert sorted(controlled, key=controlled.__getitem__) == ["m/verbose", "m/mid", "m/strong"]
    assert controlled["m/verbose"] < raw["m/verbose"] - 100
    for value in style["ratings"].values():
        assert value["low"] <= value["rating"] <= value["high"]


def test_rate_style_control_for_a_model_judge(store_path: Path) -> None:
    data = _rate(store_path, "-j", JUDGE, "--style-control")
    _check_controlled(data)
    plain = _rate(store_path, "-j", JUDGE)
    assert plain["style_control"] is None
    assert plain["bradley_terry"] == data["bradley_terry"]  # the raw ratings are untouched


def test_rate_style_control_for_human_votes(store_path: Path) -> None:
    _check_controlled(_rate(store_path, "-j", "human", "--style-control"))


def test_rate_style_control_tables(store_path: Path) -> None:
    shown = runner.invoke(
        app, ["rate", BENCH, "-j", JUDGE, "--style-control", "--store", str(store_path)]
    )
    assert shown.exit_code == 0, shown.output
    out = shown.output
    assert "style coefficients" in out and "length (tokens)" in out
    assert "style-controlled Bradley-Terry" in out
    assert f"{3 * ITEMS - LEFT_OUT} matches fitted, {LEFT_OUT} left out" in out
    plain = runner.invoke(app, ["rate", BENCH, "-j", JUDGE, "--store", str(store_path)])
    assert "style coefficients" not in plain.output


def _cells(html: str, rating: str) -> dict[str, float]:
    found = re.findall(rf'data-model="([^"]+)" data-rating="{rating}">(-?\d+)</td>', html)
    return {model: float(value) for model, value in found}


def test_report_and_web_show_the_same_style_block(store_path: Path) -> None:
    store = Store.open(str(store_path))
    try:
        expected = pairwise_report(store, BENCH, JUDGE, rounds=200, style=True).as_dict()
        people = human_report(store, BENCH, rounds=200, style=True).as_dict()
        html = benchmark_html(store, BENCH)
        rows = [r.flat() for r in leaderboard_rows(collect(store, [BENCH]))]
        with TestClient(create_app(store, WebSettings()), base_url="http://127.0.0.1:8000") as c:
            page = c.get(f"/b/{BENCH}")
    finally:
        store.close()
    want = {m: round(v["rating"]) for m, v in expected["style_control"]["ratings"].items()}
    assert _cells(html, "bt-style") == want
    assert "Style-controlled ratings" in html
    assert 'data-style-feature="tokens"' in html
    assert f'data-style-left-out="{LEFT_OUT}"' in html
    csv_cells = {r["model"]: round(r[f"bt_style:{JUDGE}"]) for r in rows}
    assert csv_cells == want  # leaderboard.csv's bt_style:<judge> column
    assert all(r[f"bt_style:{JUDGE}_low"] <= r[f"bt_style:{JUDGE}"] for r in rows)
    assert page.status_code == 200
    judged, voted = page.text.split('id="human-style"')
    assert _cells(judged, "bt-style") == want
    by_people = {m: round(v["rating"]) for m, v in people["style_control"]["ratings"].items()}
    assert _cells(voted, "bt-style") == by_people


def test_web_page_without_votes_has_no_human_style_block(tmp_path: Path) -> None:
    store = build_style_store(tmp_path / "judged-only.db", votes=False)
    try:
        with TestClient(create_app(store, WebSettings()), base_url="http://127.0.0.1:8000") as c:
            page = c.get(f"/b/{BENCH}")
    finally:
        store.close()
    assert page.status_code == 200
    assert 'id="human-style"' not in page.text
    assert "Style-controlled ratings" in page.text  # the model judge's, from the report
