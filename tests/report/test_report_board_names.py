"""The HTML leaderboard, the files and the web page agree on order and coverage, and long
model specs are shown by short names with the full spec in a legend (tests/board_world.py)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from typing import cast

import pytest
from board_world import BOARD, EPOCHS, LONG_A, LONG_B, PARTIAL, write_board
from fastapi.testclient import TestClient

from lvlmbench.report import BenchmarkSummary, ReportFiles, write_report
from lvlmbench.report.render_ratings import hallucination_section, metrics_section
from lvlmbench.report.render_vlmeval import vlmeval_section
from lvlmbench.store import Store
from lvlmbench.web import WebSettings, create_app

SHORT_A = "openai/qwen2-vl-7b-instruct (system=1a2b3c)"
SHORT_B = "openai/qwen2-vl-7b-instruct (system=9f8e7d)"
FLAG = "partial: answered 6 of 12 items, not ranked"
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, ReportFiles]]:
    folder = tmp_path_factory.mktemp("board")
    store = write_board(folder / "s.db")
    files = write_report(store, folder / "report.html")
    yield store, files
    store.close()


def _section(html: str, heading: str) -> str:
    """The HTML from ``<h3>heading</h3>`` to the next ``<h3>``."""
    start = html.index(f"<h3>{heading}</h3>")
    end = html.find("<h3>", start + 4)
    return html[start : end if end != -1 else len(html)]


def _model_cells(fragment: str) -> list[str]:
    """Each body row's model cell text (the flag under a name left out)."""
    return re.findall(r'<tr><td class="model" data-model="[^"]*" title="[^"]*">([^<]*)', fragment)


def test_html_leaderboard_shows_the_files_order_and_coverage(
    board: tuple[Store, ReportFiles],
) -> None:
    # By hand (tests/board_world.py): LONG_A 75.0 and EPOCHS 75.0 (tied, name order), LONG_B
    # 66.7, then PARTIAL at 100.0 over 6 of 12 items, listed last and not ranked. Before, the
    # HTML sorted by accuracy alone: PARTIAL first at 100.0 with nothing said.
    html = board[1].html.read_text(encoding="utf-8")
    table = _section(html, "Leaderboard")
    assert _model_cells(table) == [SHORT_A, "openai/sampled-model", SHORT_B, PARTIAL]
    assert f'<td data-model="{PARTIAL}" data-coverage="overall">{FLAG}</td>' in table
    assert f'<td data-model="{EPOCHS}" data-coverage="overall">all 12 items</td>' in table
    assert table.count('<td data-rank="none">not ranked</td>') == 1
    assert "A partial row answered fewer items: it is listed after every full one" in table
    assert table.count("1–3 (tied)") == 3
    assert f'<td data-model="{EPOCHS}" data-epochs="overall">2</td>' in table
    # The accuracy tables list the models in the same order, the partial one flagged.
    by_capability = _section(html, "Accuracy by capability")
    assert _model_cells(by_capability) == [SHORT_A, "openai/sampled-model", SHORT_B, PARTIAL]
    assert f'{PARTIAL}<br><span class="partial">{FLAG}</span>' in by_capability


def test_long_specs_get_short_names_and_a_legend(board: tuple[Store, ReportFiles]) -> None:
    html = board[1].html.read_text(encoding="utf-8")
    legend = _section(html, "Leaderboard").split("<h4>Models</h4>")[1]
    spec_a = LONG_A.replace("&", "&amp;")
    assert f'<td data-legend="name">{SHORT_A}</td><td data-legend="spec"><code>{spec_a}</code>' in (
        legend
    )
    assert f"<code>{EPOCHS}</code>" in legend  # shortened too: its options left out
    assert f"<code>{PARTIAL}</code>" not in legend  # shown in full, so not in the legend
    # Nothing but the legend and attributes (a cell's title, data-model) prints the full
    # spec: no table cell, chart legend or gallery line; the charts name the short names.
    shown = re.sub(r'="[^"]*"', "", re.sub(r"<code>[^<]*</code>", "", html))
    assert spec_a not in shown and "max_tokens" not in shown
    assert f">{SHORT_B}</text>" in html


def test_files_keep_the_identity_and_add_the_display_name(
    board: tuple[Store, ReportFiles],
) -> None:
    files = board[1]
    with files.leaderboard_csv.open(encoding="utf-8") as f:
        rows = {r["model"]: r for r in csv.DictReader(f)}
    assert rows[LONG_A]["display"] == SHORT_A and rows[LONG_B]["display"] == SHORT_B
    assert rows[PARTIAL]["display"] == PARTIAL
    markdown = files.leaderboard_md.read_text(encoding="utf-8")
    assert f"| {SHORT_A} | 75.0 [46.8–91.1] |" in markdown
    assert f"| {SHORT_A} | {LONG_A.replace('&', '&amp;')} |" in markdown  # the legend


def test_web_page_shows_the_same_rows_names_and_legend(board: tuple[Store, ReportFiles]) -> None:
    store, files = board
    with TestClient(create_app(store, WebSettings()), base_url=LOCAL) as client:
        page = client.get(f"/b/{BOARD}").text
        api = client.get(f"/api/b/{BOARD}/leaderboard").json()
        item = client.get(f"/b/{BOARD}/items/b00").text
    table = _section(page, "Leaderboard")
    report = _section(files.html.read_text(encoding="utf-8"), "Leaderboard")
    assert _model_cells(table) == _model_cells(report)
    assert f'<td data-model="{PARTIAL}" data-coverage="overall">{FLAG}</td>' in table
    assert f'<td data-legend="name">{SHORT_B}</td>' in table
    shown = {r["model"]: (r["display"], r.get("coverage")) for r in api["rows"]}
    assert shown[LONG_B] == (SHORT_B, "all 12 items")
    assert shown[PARTIAL] == (PARTIAL, FLAG)
    assert api["summary"]["display"][LONG_A] == SHORT_A
    # The item page's answers table: short names (the answer column keeps its room), the
    # full specs in a legend under it.
    spec_b = LONG_B.replace("&", "&amp;")
    assert f'title="{spec_b}">{SHORT_B}</a>' in item
    assert (
        f'<td data-legend="name">{SHORT_B}</td><td data-legend="spec"><code>{spec_b}</code>' in item
    )
    assert f">{spec_b}</a>" not in item


def test_gallery_labels_each_epoch(board: tuple[Store, ReportFiles]) -> None:
    html = board[1].html.read_text(encoding="utf-8")
    # EPOCHS is right in epoch 1 everywhere and wrong in epoch 2 on even items (b00 among
    # them); every other model answered once, so its lines carry no epoch.
    said = f'data-model="{EPOCHS}" data-epoch="1"><span class="mark">✗</span> '
    assert (
        f'{said}<b title="{EPOCHS}">openai/sampled-model</b> <span class="tag">epoch 2</span>'
        in (html)
    )
    once = f'data-model="{PARTIAL}" data-epoch="0"><span class="mark">✓</span> '
    assert f'{once}<b title="{PARTIAL}">{PARTIAL}</b>: ' in html


def test_judged_and_vlmeval_sections_use_the_display_names() -> None:
    # Sections rendered from a summary as summary.json holds it: each names a model by the
    # summary's display name (before: the full spec in every table cell and chart label).
    names = {LONG_A: SHORT_A, LONG_B: SHORT_B}
    metric = {
        "metric": "rougeL", "model": LONG_A, "n": 4, "mean": 0.5, "ci_low": 0.4,
        "ci_high": 0.6, "probe": False, "scale": "0-1", "bradley_terry": None,
        "bt_interval": None, "win_rate": None,
    }  # fmt: skip
    rated = {"model": LONG_B, "mean": 2.0, "ci_low": 1.0, "ci_high": 3.0, "rated": 4}
    circular = {
        "model": LONG_A, "variant": "default", "row_accuracy": 0.5, "rows_correct": 2,
        "rows": 4, "copies": 4, "circular_accuracy": 0.0, "questions_correct": 0,
        "questions": 1, "incomplete": 0, "unasked": 0, "epochs": 1,
    }  # fmt: skip
    bench = cast(
        BenchmarkSummary,
        {
            "display": names,
            "metrics": [metric],
            "hallucination": [{"judge": "j", "models": [{**rated, "unscored": 0}]}],
            "circular": [circular],
            "mme": [],
        },
    )
    html = metrics_section(bench) + hallucination_section(bench) + vlmeval_section(bench)
    assert f"<td>{SHORT_A}</td>" in html and f"<td>{SHORT_B}</td>" in html
    assert f">{SHORT_A}</text>" in html and f">{SHORT_B}</text>" in html  # chart row labels
    assert "max_tokens" not in re.sub(r'="[^"]*"|<title>[^<]*</title>', "", html)


def test_comparisons_name_the_pairs_by_display_names(board: tuple[Store, ReportFiles]) -> None:
    # Every model against the best (LONG_A and EPOCHS tie at 75.0; the table picks one): each
    # pair cell reads "short vs short", and the page lists the full specs under the table.
    store, _ = board
    with TestClient(create_app(store, WebSettings()), base_url=LOCAL) as client:
        page = client.get(f"/b/{BOARD}/compare").text
    pairs = re.findall(r"<tr><td>([^<]* vs [^<]*)</td><td>all</td>", page)
    assert pairs and all("max_tokens" not in p for p in pairs)
    assert any(p.startswith(f"{SHORT_B} vs ") for p in pairs), pairs
    assert f'<td data-legend="name">{SHORT_B}</td>' in page
