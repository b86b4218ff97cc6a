"""The report's charts read at a glance: round axis ticks, readable responsive frames, no
one-entry legends."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from report.conftest import Built

from lvlmbench.report._html import human_label
from lvlmbench.report._svg_parts import nice_ticks, tick_digits
from lvlmbench.report.svg import Dot, bar_chart, dot_interval_chart, line_chart

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0.0, 100.0, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
        (2.0, 49.0, [10.0, 20.0, 30.0, 40.0]),
        (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0.0, 10.0, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]),
        (-100.0, 100.0, [-100.0, -50.0, 0.0, 50.0, 100.0]),
        (0.0, 12.0, [0.0, 2.5, 5.0, 7.5, 10.0]),
        (1.0, 5.0, [1.0, 2.0, 3.0, 4.0, 5.0]),
        (30.0, 30.0, [30.0]),
    ],
)
def test_nice_ticks_are_round_numbers_inside_the_axis(
    lo: float, hi: float, expected: list[float]
) -> None:
    assert nice_ticks(lo, hi) == expected


def test_tick_digits_print_each_tick_exactly() -> None:
    assert tick_digits([0.0, 20.0, 40.0]) == 0
    assert tick_digits([0.0, 2.5, 5.0]) == 1
    assert tick_digits([0.0, 0.2, 0.4]) == 1
    assert tick_digits([0.0, 0.25, 0.5]) == 2


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_axis_labels_are_the_round_ticks() -> None:
    dots = [Dot("color", "model-a", 37.0, 30.0, 44.0), Dot("count", "model-a", 61.0, 55, 67)]
    texts = _texts(dot_interval_chart(dots, "Accuracy", lo=2.0, hi=49.0))
    assert [t for t in texts if t.endswith("%")] == ["10%", "20%", "30%", "40%"]
    line = _texts(line_chart(["easy", "hard"], {"a": [80.0, 40.0], "b": [70.0, 20.0]}, "t"))
    assert [t for t in line if t.isdigit()] == ["0", "20", "40", "60", "80", "100"]


def test_a_single_series_gets_no_legend_but_two_do() -> None:
    one = [Dot("color", "model-a", 50.0, 40.0, 60.0)]
    assert "model-a" not in _texts(dot_interval_chart(one, "Accuracy"))
    two = [*one, Dot("color", "model-b", 70.0, 60.0, 80.0)]
    assert {"model-a", "model-b"} <= set(_texts(dot_interval_chart(two, "Accuracy")))
    # With one series and a chance line, the chance entry takes the legend's first row.
    alone = bar_chart(["color"], ["model-a"], {("color", "model-a"): 40.0}, "Bias", chance=25)
    assert "chance" in _texts(alone) and "model-a" not in _texts(alone)


def test_charts_are_responsive_with_readable_text() -> None:
    svg = dot_interval_chart([Dot("color", "m", 50.0, 40.0, 60.0)], "Accuracy")
    frame = re.match(r"<svg [^>]*>", svg)
    assert frame is not None
    assert 'width="100%"' in frame.group(0) and "height=" not in frame.group(0).split("style")[0]
    view = re.search(r'viewBox="0 0 (\d+) (\d+)"', frame.group(0))
    assert view is not None and int(view.group(1)) >= 800
    assert f"max-width:{view.group(1)}px" in frame.group(0)
    sizes = {int(s) for s in re.findall(r'font-size="(\d+)"', svg)}
    assert sizes and min(sizes) >= 13


def test_the_page_folds_every_benchmark_but_the_first_and_links_them_all(built: Built) -> None:
    html = built.html
    names = [n for n in re.findall(r'<section id="([^"]+)">', html) if n != "summary"]
    assert len(names) >= 2
    toc = html[html.index("<nav>") : html.index("</nav>")]
    assert [f"#{n}" for n in names] == re.findall(r'href="(#[^"]+)"', toc)[-len(names) :]
    for i, name in enumerate(names):
        start = html.index(f'<section id="{name}">')
        section = html[start : html.index("</section>", start)]
        opening = "<details open>" if i == 0 else "<details>"
        assert section.startswith(f'<section id="{name}">{opening}<summary><h2>{name}</h2>')
        assert section.endswith("</details>")
        assert section.count("<details") == section.count("</details>")
    assert "<script" not in html  # folding is the browser's own, without JavaScript


def test_human_label_says_keys_as_words() -> None:
    assert human_label("accepted_with_errors") == "accepted with errors"
    assert human_label("not_checkable") == "not checkable"
    assert human_label("units") == "units"


def test_generation_figures_are_shown_in_words(built: Built) -> None:
    html = built.html
    assert "Generation report" in html
    cells = re.findall(r"<td>([^<]*)</td><td data-figure=\"self_check\.", html)
    assert "accepted with errors" in cells and "rejection rate" in cells
    assert not [c for c in cells if "_" in c]
