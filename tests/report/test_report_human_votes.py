"""The report's human-votes section: votes imported from a votes file, where people (and a
model judge) favour long answers. Its numbers in summary.json, the HTML and leaderboard.csv are
the ones `lvlmbench rate -j human --style-control` and `lvlmbench agreement` print; a store
without votes has no section at all."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from report.cells import cell, section
from style_world import BENCH, ITEMS, JUDGE, MISSING, build_style_store
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.judging import judges_for
from lvlmbench.report import write_report
from lvlmbench.store import Store, put_judgments
from lvlmbench.types import Judgment, Status
from lvlmbench.web import WebSettings, create_app

runner = CliRunner()
VOTES = 3 * ITEMS
"""One vote per pair of the three models on every item."""


@dataclass(frozen=True)
class Written:
    store: Store
    html: str
    summary: dict[str, Any]
    rows: list[dict[str, str]]
    markdown: str


def _write(store: Store, out: Path) -> Written:
    files = write_report(store, out / "report.html", gallery_size=0)
    with files.leaderboard_csv.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return Written(
        store,
        files.html.read_text(encoding="utf-8"),
        json.loads(files.summary.read_text(encoding="utf-8")),
        rows,
        files.leaderboard_md.read_text(encoding="utf-8"),
    )


@pytest.fixture(scope="module")
def voted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Written]:
    out = tmp_path_factory.mktemp("voted")
    store = build_style_store(out / "voted.db", vote_file=out / "votes.csv")
    try:
        yield _write(store, out / "report")
    finally:
        store.close()


def _cli(store: Store, *args: str) -> str:
    result = runner.invoke(
        app, [*args, "--store", store.url], env={"COLUMNS": "200"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def _rate(store: Store) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        _cli(store, "rate", BENCH, "-j", "human", "--style-control", "--json")
    )
    return data


def _entry(written: Written) -> dict[str, Any]:
    (bench,) = written.summary["benchmarks"]
    (entry,) = bench["human"]
    assert isinstance(entry, dict)
    return entry


def test_the_votes_came_through_the_importer(voted: Written) -> None:
    assert judges_for(voted.store, "human") == ["human:crowd"]
    entry = _entry(voted)
    assert (entry["votes"], entry["annotators"]) == (VOTES, ["crowd"])
    assert entry["ratings"]["statuses"] == {"ok": VOTES}


def test_summary_json_holds_what_rate_prints(voted: Written) -> None:
    entry = _entry(voted)
    rate = _rate(voted.store)
    assert entry["ratings"] == rate  # raw and controlled ratings, intervals, coefficients
    assert (entry["rounds"], entry["seed"]) == (200, 0)  # `rate`'s defaults
    style = rate["style_control"]
    tokens = style["coefficients"]["tokens"]
    assert 0 < tokens["low"] < tokens["value"] < tokens["high"]  # the injected length bias
    assert style["matches_without_text"] == 2 * MISSING
    raw = {m: v["rating"] for m, v in rate["bradley_terry"].items()}
    controlled = {m: v["rating"] for m, v in style["ratings"].items()}
    assert max(raw, key=raw.__getitem__) == "m/verbose"  # people favour the long answers
    assert max(controlled, key=controlled.__getitem__) == "m/strong"  # not once controlled


def _next_cell(html: str, marker: str) -> str:
    """The text of the cell right after the one whose attributes end with ``marker``."""
    found = re.search(re.escape(marker) + r">[^<]*</td><td>([^<]*)</td>", html)
    assert found is not None, marker
    return found[1]


def test_html_section_shows_the_ratings_coefficients_and_their_intervals(
    voted: Written,
) -> None:
    html = section(voted.html, BENCH)
    rate = _rate(voted.store)
    assert f"<h3>Human votes ({VOTES} votes, {VOTES} pairs)</h3>" in html
    assert f'data-human-votes="{VOTES}"' in html and "200 rounds, seed 0" in html
    for model, raw in rate["bradley_terry"].items():
        assert cell(html, model=model, rating="bt", judge="human") == f"{raw['rating']:.0f}"
        marker = f'data-model="{model}" data-rating="bt" data-judge="human"'
        assert _next_cell(html, marker) == f"{raw['low']:.0f}–{raw['high']:.0f}"
        for figure, key in (("elo-in-order", "in_order"), ("elo-shuffled", "shuffled_mean")):
            shown = cell(html, model=model, rating=figure, judge="human")
            assert shown == f"{rate['online_elo'][key][model]:.0f}"
    for model, fit in rate["style_control"]["ratings"].items():
        shown = cell(html, model=model, rating="bt-style", judge="human")
        assert shown == f"{fit['rating']:.0f}"
        marker = f'data-model="{model}" data-rating="bt-style" data-judge="human"'
        assert _next_cell(html, marker) == f"{fit['low']:.0f}–{fit['high']:.0f}"
    for feature, c in rate["style_control"]["coefficients"].items():
        assert cell(html, style_feature=feature, judge="human") == f"{c['value']:+.3f}"
        marker = f'data-style-feature="{feature}" data-judge="human"'
        assert _next_cell(html, marker) == f"{c['low']:.3f}–{c['high']:.3f}"
    assert float(cell(html, style_feature="tokens", judge="human")) > 0


def test_html_numbers_are_those_rate_prints_in_its_tables(voted: Written) -> None:
    printed = _cli(voted.store, "rate", BENCH, "-j", "human", "--style-control")
    coefficients, controlled = printed.split("style-controlled Bradley-Terry")
    html = section(voted.html, BENCH)
    tokens = next(ln for ln in coefficients.splitlines() if "length (tokens)" in ln)
    assert cell(html, style_feature="tokens", judge="human") in tokens  # "+2.627 (+2.096 – …"
    for model in ("m/strong", "m/mid", "m/verbose"):
        rating = cell(html, model=model, rating="bt-style", judge="human")
        marker = f'data-model="{model}" data-rating="bt-style" data-judge="human"'
        line = next(ln for ln in controlled.splitlines() if f" {model} " in ln)
        assert f"{rating} ({_next_cell(html, marker)})" in line  # "1160 (1100–1237)"


def test_judge_agreement_equals_the_agreement_command(voted: Written) -> None:
    (row,) = _entry(voted)["agreement"]
    printed = json.loads(_cli(voted.store, "agreement", BENCH, "-j", JUDGE, "--json"))
    overall = printed["levels"][-1]
    assert (row["judge"], row["protocol"], row["pairs"]) == (JUDGE, "pairwise", printed["pairs"])
    assert (row["agreement"], row["kappa"]) == (overall["coin_flip_rate"], printed["kappa"])
    assert row["ranking_tau"] == printed["ranking_kendall_tau"]
    # The judge and the people saw the same draw: they agree on every pair.
    assert (row["pairs"], row["agreement"]) == (VOTES, 1.0)
    html = section(voted.html, BENCH)
    assert cell(html, agreement=JUDGE, judge="human") == "100.0"


def test_leaderboard_files_carry_the_people_columns(voted: Written) -> None:
    rate = _rate(voted.store)
    by_model = {r["model"]: r for r in voted.rows}
    for model, raw in rate["bradley_terry"].items():
        assert float(by_model[model]["bt:human"]) == round(raw["rating"], 4)
        assert float(by_model[model]["bt:human_low"]) == round(raw["low"], 4)
        fit = rate["style_control"]["ratings"][model]
        assert float(by_model[model]["bt_style:human"]) == round(fit["rating"], 4)
        assert float(by_model[model]["bt_style:human_high"]) == round(fit["high"], 4)
    assert "combine:human" not in voted.rows[0]  # a vote is one match: nothing was combined
    assert f"combine:{JUDGE}" in voted.rows[0]
    assert "| bt:human |" in voted.markdown and "| bt_style:human |" in voted.markdown


def test_no_votes_no_section(tmp_path: Path) -> None:
    store = build_style_store(tmp_path / "judged-only.db", votes=False)
    try:
        written = _write(store, tmp_path / "report")
    finally:
        store.close()
    (bench,) = written.summary["benchmarks"]
    assert "human" not in bench
    assert "Human votes" not in written.html and 'data-judge="human"' not in written.html
    assert "Style-controlled ratings" in written.html  # the model judge's block stays
    assert not any(column.endswith(":human") for column in written.rows[0])


def test_votes_without_a_usable_one_get_a_section_that_says_so(tmp_path: Path) -> None:
    store = build_style_store(tmp_path / "unusable.db", votes=False)
    try:
        vote = Judgment(
            item_id="s010",
            judge="human:x",
            protocol="human",
            model_a="m/mid",
            model_b="m/strong",
            status=Status.UNPARSEABLE,
        )
        put_judgments(store, [vote])
        written = _write(store, tmp_path / "report")
    finally:
        store.close()
    (entry,) = written.summary["benchmarks"][0]["human"]
    assert (entry["votes"], entry["ratings"]["unscored_pairs"]) == (1, 1)
    assert entry["ratings"]["bradley_terry"] is None and entry["agreement"] == []
    html = section(written.html, BENCH)
    assert "<h3>Human votes (1 vote, 1 pairs)</h3>" in html
    assert "no scored pairs: nothing to rate" in html and 'data-judge="human"' not in html
    assert not any(column.endswith(":human") for column in written.rows[0])


def test_web_page_shows_the_votes_once(voted: Written) -> None:
    """The leaderboard page keeps people's votes in its own block: the report's human-votes
    section is left out of the report part, so nothing is shown twice."""
    with TestClient(create_app(voted.store, WebSettings()), base_url="http://127.0.0.1:8000") as c:
        page = c.get(f"/b/{BENCH}").text
    assert "<h3>Human votes (" not in page and 'data-judge="human"' not in page
    assert page.count("<h4>Style-controlled ratings</h4>") == 2  # the judge's, the people's
    assert f"{VOTES} votes by 1 annotator(s): crowd." in page
    agreement = re.search(r'<table id="agreement">.*?</table>', page, re.S)
    assert agreement is not None and JUDGE in agreement[0] and "100.0%" in agreement[0]
