"""Model output and names reach the report only as inert, escaped text."""

from __future__ import annotations

import re
from html import escape

from report.conftest import AUTOBENCH, HOSTILE_MODEL, HOSTILE_TEXT, Built

from lvlmbench.report import Dot, bar_chart, dot_interval_chart, heatmap, line_chart, range_chart


def test_hostile_response_is_inert_text(built: Built) -> None:
    html = built.html
    assert escape(HOSTILE_TEXT) in html
    assert "<script>" not in html
    assert "<img src=x" not in html
    assert not re.search(r"<img[^>]*onerror", html)
    assert escape(HOSTILE_MODEL) in html
    assert "<b>bold</b>" not in html


def test_hostile_model_has_its_accuracy_row(built: Built) -> None:
    cell = f'data-model="{escape(HOSTILE_MODEL)}" data-facet="overall" data-group="all">0.0</td>'
    assert cell in built.html
    assert AUTOBENCH in built.html


def test_svg_labels_are_escaped() -> None:
    evil = "<script>x</script>&"
    charts = [
        dot_interval_chart([Dot(evil, evil, 50.0, 40.0, 60.0)], evil),
        line_chart(["easy", evil], {evil: [10.0, None]}, evil),
        heatmap([evil], [evil], {(evil, evil): 12.5}, evil),
        bar_chart([evil], [evil], {(evil, evil): -12.5}, evil, -20.0, 20.0),
        range_chart({evil: {evil: 12.5, "b": 40.0}}, evil),
    ]
    for svg in charts:
        assert "<script>" not in svg
        assert "&lt;script&gt;x&lt;/script&gt;&amp;" in svg
