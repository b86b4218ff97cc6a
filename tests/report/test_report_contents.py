"""The static report's numbers equal the store's, every model and capability appears, the SVG
charts are well-formed, nothing points at the network and summary.json agrees with the HTML."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import escape, unescape

from report.conftest import AUTOBENCH, OPEN, Built

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.judging.pairwise_report import pairwise_report
from lvlmbench.report import benchmark_html, report_css


def _acc_cells(html: str) -> dict[tuple[str, str, str], str]:
    """{(model, facet, group): text} of every accuracy cell (first benchmark wins per key)."""
    cells: dict[tuple[str, str, str], str] = {}
    pattern = (
        r'<td class="acc" data-model="([^"]*)" data-facet="([^"]*)" '
        r'data-group="([^"]*)">([^<]*)</td>'
    )
    for model, facet, group, text in re.findall(pattern, html):
        cells.setdefault((unescape(model), facet, unescape(group)), text)
    return cells


def _section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def test_accuracy_cells_equal_the_store(built: Built) -> None:
    cells = _acc_cells(_section(built.html, AUTOBENCH))
    assert cells[("baseline/oracle", "overall", "all")] == "100.0"
    for by in ("capability", "difficulty"):
        rows = accuracy_table(built.store, AUTOBENCH, [by])
        assert rows
        for row in rows:
            assert cells[(row.model, by, row.group[0])] == f"{100 * row.accuracy:.1f}"
    random = accuracy_table(built.store, AUTOBENCH, models=["baseline/random"])[0]
    assert cells[("baseline/random", "overall", "all")] == f"{100 * random.accuracy:.1f}"


def test_every_model_and_capability_appears(built: Built) -> None:
    section = _section(built.html, AUTOBENCH)
    models = {r.model for r in accuracy_table(built.store, AUTOBENCH)}
    assert {"baseline/oracle", "baseline/random", "baseline/prior", "baseline/pixels"} <= models
    for model in models:
        assert escape(model) in section
    assert "spatial understanding" in section
    for level in ("easy", "medium", "hard"):
        assert f'data-group="{level}"' in section
    for row in accuracy_table(built.store, AUTOBENCH, ["fine_aspect"]):
        assert escape(row.group[0]) in section  # heatmap rows


def test_sections_present(built: Built) -> None:
    section = _section(built.html, AUTOBENCH)
    for heading in (
        "Leaderboard",
        "Accuracy by capability",
        "Accuracy by difficulty",
        "Accuracy vs difficulty",
        "Model spread by level",
        "Fine aspect × model",
        "Generation report",
        "Gallery",
    ):
        assert f"<h3>{heading}</h3>" in section
    assert 'data-figure="self_check.rejection_rate"' in section
    assert "<h4>Key check</h4>" in section and 'data-figure="key_check.verified"' in section
    assert 'data-figure="diversity.distinct_1"' in section
    assert section.count('<div class="card">') == 24
    assert "data:image/jpeg;base64," in section
    opened = _section(built.html, OPEN)
    assert "<h3>Metric scores (open-ended)</h3>" in opened
    assert "Pairwise ratings" in opened and "Bradley-Terry" in opened
    assert "<h4>Judge diagnostics</h4>" in opened and "win rate vs reference" in opened
    assert "<h3>TouchStone scores — judge judge/scorer</h3>" in opened
    assert "<h3>Hallucination — judge judge/halluc</h3>" in opened
    assert "<h3>Leaderboard</h3>" not in opened  # no choice items: no accuracy section


def test_svgs_are_well_formed(built: Built) -> None:
    svgs = re.findall(r"<svg\b.*?</svg>", built.html, flags=re.S)
    assert len(svgs) >= 5
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag == "svg"
        assert root.find("title") is not None
    heat = next(s for s in svgs if "per fine aspect" in s)
    assert ">100.0</text>" in heat  # the oracle's cells carry their number


def test_no_network_references(built: Built) -> None:
    assert not re.search(r"https?://", built.html)
    assert "<script" not in built.html
    assert "<link" not in built.html


def test_summary_json_matches_store_and_html(built: Built) -> None:
    summary = json.loads(built.summary_path.read_text(encoding="utf-8"))
    benches = {b["name"]: b for b in summary["benchmarks"]}
    assert set(benches) == {AUTOBENCH, OPEN}
    auto = benches[AUTOBENCH]
    cells = _acc_cells(_section(built.html, AUTOBENCH))
    for row in accuracy_table(built.store, AUTOBENCH, ["difficulty"]):
        entry = next(
            r
            for r in auto["difficulty"]
            if r["model"] == row.model and r["difficulty"] == row.group[0]
        )
        assert entry["accuracy"] == round(100 * row.accuracy, 1)
        assert entry["correct"] == row.correct and entry["answered"] == row.answered
        assert f"{entry['accuracy']:.1f}" == cells[(row.model, "difficulty", row.group[0])]
    assert auto["self_check"]["rejection_rate"] == 0.0
    # The procedural examiner writes its keys from the program's facts: all verified.
    keys = auto["key_check"]
    assert keys["verified"] == keys["questions"] > 0 and keys["mismatched"] == 0
    metrics = benches[OPEN]["metrics"]
    oracle_bleu = next(
        m for m in metrics if m["metric"] == "bleu4" and m["model"] == "baseline/oracle"
    )
    assert oracle_bleu["mean"] == 100.0
    pair = benches[OPEN]["pairwise"][0]
    expected = pairwise_report(built.store, OPEN, "judge/fake", rounds=200).as_dict()
    assert pair["online_elo"] == expected["online_elo"]
    assert pair["win_rate_vs_reference"]["baseline/oracle"]["rate"] == 1.0
    assert pair["win_rate_vs_reference"]["baseline/random"]["rate"] == 0.0
    win_cell = 'data-model="baseline/oracle" data-rating="winrate">100.0</td>'
    assert win_cell in _section(built.html, OPEN)


def test_file_size_is_reasonable(built: Built) -> None:
    assert len(built.html.encode()) < 1_500_000


def test_benchmark_fragment_for_other_pages(built: Built) -> None:
    fragment = benchmark_html(built.store, AUTOBENCH)
    assert fragment.startswith(f'<section id="{AUTOBENCH}">') and fragment.endswith("</section>")
    assert "<style" not in fragment and "<script" not in fragment
    assert '<div class="card">' not in fragment  # no gallery unless asked for
    assert _acc_cells(fragment) == _acc_cells(_section(built.html, AUTOBENCH))
    assert benchmark_html(built.store, AUTOBENCH, gallery_size=2).count('<div class="card">') == 2
    css = report_css()
    assert "td.acc" in css and css in built.html
