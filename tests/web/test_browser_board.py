"""The leaderboard as a reader sees it, in Debian's Chromium: the web benchmark page and
report.html over a store with a partial-coverage model, two long specs that differ only in
their system prompt, and `evaluate --epochs 2` runs (tests/board_world.py, plus a real
``lvlmbench evaluate --epochs 2`` of a baseline). Assertions are on the rendered page:
the legend with the full specs, the partial row flagged and unranked, the figure columns at
least 8 characters wide, every chart label inside its chart, the epochs shown.

Screenshots go to $LVLMBENCH_SCREENSHOTS (or a temp dir). Skipped when /usr/bin/chromium is
missing, unless LVLMBENCH_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_world import BOARD, EPOCHS, LONG_A, LONG_B, PARTIAL, write_board
from cli_runs import evaluate_json
from web.chromium import require_chromium
from web_server import running

from lvlmbench.report import write_report
from lvlmbench.store import Store
from lvlmbench.web import create_app

pytestmark = pytest.mark.integration

require_chromium()

FLAG = "partial: answered 6 of 12 items, not ranked"
SHORT_A = "openai/qwen2-vl-7b-instruct (system=1a2b3c)"
RANDOM = "baseline/random?seed=3"

# Each body row of the Leaderboard table: (model identity, shown name, coverage, rank, epochs).
_ROWS_JS = """(table) => [...table.querySelectorAll('tbody tr')].map(tr => {
  const model = tr.querySelector('td.model');
  const cell = (k) => tr.querySelector(`td[data-${k}]`);
  return [model.dataset.model, model.textContent, cell('coverage').textContent,
          cell('rank').textContent, cell('epochs').textContent];
})"""

# Every svg text's box against its svg's box (1 px of anti-aliasing allowed).
_CUT_JS = """() => [...document.querySelectorAll('svg')].flatMap(svg => {
  const frame = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].filter(t => {
    const box = t.getBoundingClientRect();
    return box.left < frame.left - 1 || box.right > frame.right + 1 || box.top < frame.top - 1;
  }).map(t => t.textContent);
})"""

# For each cell matched by the selector: its content width (padding left out) and the width
# of TEXT on one line in that cell's font, measured off the table so the probe cannot wrap.
_FITS_JS = """([selector, text]) => [...document.querySelectorAll(selector)].map(cell => {
  const style = getComputedStyle(cell);
  const probe = document.createElement('span');
  probe.style.font = style.font;
  probe.style.whiteSpace = 'nowrap';
  probe.style.position = 'absolute';
  probe.textContent = text;
  document.body.appendChild(probe);
  const needed = probe.getBoundingClientRect().width;
  probe.remove();
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return [cell.getBoundingClientRect().width - padding, needed];
})"""


def _fits(page: Any, selector: str, text: str) -> None:
    """Every cell ``selector`` matches holds ``text`` on one line (half a pixel spare)."""
    found = page.evaluate(_FITS_JS, [selector, text])
    assert found, selector
    assert all(width + 0.5 >= needed for width, needed in found), (selector, found)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The served web app's base URL, and report.html written from the same store."""
    folder = tmp_path_factory.mktemp("board")
    write_board(folder / "s.db").close()
    evaluate_json(folder / "s.db", BOARD, "-m", RANDOM, "--epochs", "2")
    store = Store.open(str(folder / "s.db"))
    report = write_report(store, folder / "report" / "report.html").html
    with running(create_app(store)) as base:
        yield base, report
    store.close()


def _leaderboard(page: Any) -> Any:
    return page.locator("h3:text-is('Leaderboard') + p + table").first


def _check_board(page: Any) -> None:
    table = _leaderboard(page)
    rows = table.evaluate(_ROWS_JS)
    # By hand (tests/board_world.py): 75.0, 75.0, 66.7 for the full runs, the random
    # baseline (its figure is whatever its seed drew) among them; PARTIAL last at 100.0.
    models = [r[0] for r in rows]
    assert set(models) == {LONG_A, LONG_B, EPOCHS, RANDOM, PARTIAL} and models[-1] == PARTIAL
    by_model = {r[0]: r for r in rows}
    assert by_model[PARTIAL][2:4] == [FLAG, "not ranked"]
    assert by_model[LONG_A][1] == SHORT_A and by_model[LONG_A][2] == "all 12 items"
    assert by_model[EPOCHS][4] == "2" and by_model[RANDOM][4] == "2"
    # The legend gives the full spec behind each short name.
    legend = page.locator("table.legend").first
    specs = legend.locator("td[data-legend=spec]").all_inner_texts()
    assert LONG_A in specs and LONG_B in specs
    # No long spec squeezes the figures: every accuracy and interval cell holds 8 or 9
    # characters on one line (before, "46.8–91.1" wrapped onto two lines beside the names).
    _fits(page, "table.acc td.acc", "00.0")
    _fits(page, "table.acc td.ci", "00.0–00.0")
    # Every chart label and legend entry lies inside its chart (before, 20 were cut).
    assert page.evaluate(_CUT_JS) == []


def test_web_leaderboard_in_chromium(world: tuple[str, Path], page: Any, shots: Path) -> None:
    base, _ = world
    page.goto(f"{base}/b/{BOARD}")
    page.screenshot(path=str(shots / "board-web.png"), full_page=True)
    _check_board(page)
    heat = page.locator("svg text.count").first
    assert heat.evaluate("t => parseFloat(getComputedStyle(t).fontSize)") >= 12


def test_report_html_in_chromium(world: tuple[str, Path], page: Any, shots: Path) -> None:
    _, report = world
    page.goto(report.as_uri())
    page.screenshot(path=str(shots / "board-report.png"), full_page=True)
    _check_board(page)
    # The gallery labels each epoch of the sampled runs.
    tags = page.locator(f'li[data-model="{EPOCHS}"] .tag').all_inner_texts()
    assert "epoch 1" in tags and "epoch 2" in tags


def test_item_page_answer_column_keeps_its_room(
    world: tuple[str, Path], page: Any, shots: Path
) -> None:
    base, _ = world
    page.goto(f"{base}/b/{BOARD}/items/b00")
    page.screenshot(path=str(shots / "board-item.png"), full_page=True)
    # The sampled model's second reply is a sentence: beside a full spec the answer column was
    # about 69 px of text, narrower than 8 digits (73 px); now 16 characters fit on a line.
    _fits(page, "#responses td.text", "0" * 16)
    assert LONG_B in page.locator("#legend").inner_text()
    samples = page.locator("#responses td.sample").all_inner_texts()
    assert samples.count("2") >= 2  # EPOCHS and the random baseline: a second sample each
