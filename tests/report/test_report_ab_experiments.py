"""Report sections of the per-level leakage and rank experiments and of the stored diversity
and aspect-grid experiments."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from level_answers import BENCH, level_store
from report.cells import cell

from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.store import put_artifact

FIGURES = ("distinct_topics", "topic_entropy", "top_topic_share", "keyword_uniqueness")
DIVERSITY = {
    "groups": [{}, {}, {}, {}],
    "summary": {
        condition: {
            name: {"mean": mean, "low": mean - 0.5, "high": mean + 0.5, "n": 2} for name in FIGURES
        }
        for condition, mean in (("graph", 9.5), ("no graph", 3.0), ("difference", 6.5))
    },
    "settings": {"count": 10, "seed": 0, "levels": ["easy"], "bans": "per-round"},
}
ASPECTS = {
    "capability": "spatial",
    "examiner": "procedural",
    "grid": [{"n": 2, "m": 4, "fine": 8, "diversity": 0.8831, "near_duplicates": 0, "problems": 0}],
}


def test_sections_show_the_hand_worked_figures(tmp_path: Path):
    store = level_store(tmp_path / "s.db")
    put_artifact(store, BENCH, "experiment", "diversity", DIVERSITY)
    put_artifact(store, BENCH, "experiment", "aspects", ASPECTS)
    html = render_benchmark(benchmark_summary(store, BENCH))
    store.close()
    # Ranks (see tests/autobench/test_exp_levels.py): hard has m1 and m3 tied first.
    assert cell(html, model="m3", rank="hard") == "#1 (25.0)"
    assert cell(html, model="m2", rank="hard") == "#3 (0.0)"
    # Description-only at easy: 2/4 each; Wilson 95% of 2/4 is 15.0–85.0.
    assert cell(html, level="easy", model="m1") == "50.0 [15.0, 85.0]"
    assert cell(html, level="hard", figure="std") == "20.4"  # pstdev(25, 50, 0)
    assert cell(html, level="medium", model="m1") == "-"  # no description-only answers
    assert cell(html, diversity="difference", figure="distinct_topics") == "6.50 [6.00, 7.00]"
    assert cell(html, aspects="2x4") == "0.883"
    for heading in ("Ranks per level", "Answer leakage per level", "Diversity with vs without"):
        assert heading in html
    for svg in html.split("<svg")[1:]:  # every chart parses as XML
        ET.fromstring("<svg" + svg[: svg.index("</svg>") + len("</svg>")])


def test_no_experiment_no_section(tmp_path: Path):
    store = level_store(tmp_path / "s.db")
    html = render_benchmark(benchmark_summary(store, "nothing-here"))
    store.close()
    assert "Ranks per level" not in html and "Diversity with vs without" not in html
