"""Chart text is shown whole and readable: legend entries and row labels fit the drawing, the
heatmap's slanted column labels too, and its n= line is 12 px, clear of the value above it.

Widths are measured with DejaVu Sans, the sans-serif Chromium draws these charts with here
(``fc-match sans-serif``), through Pillow; 0.6 em a character where the font is missing.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from lvlmbench.report.svg import Dot, dot_interval_chart, heatmap, line_chart, range_chart

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LONG = "openai/qwen2-vl-72b-instruct-awq (system=1a2b3c)"
OTHER = "anthropic/claude-3-5-sonnet-20241022 (#3fa1)"


def _width(text: str, size: float) -> float:
    if _DEJAVU.exists():
        from PIL import ImageFont

        return float(ImageFont.truetype(str(_DEJAVU), round(size)).getlength(text))
    return 0.6 * size * len(text)


def _parse(svg: str) -> tuple[float, list[ET.Element]]:
    """The drawing's width and its horizontal text elements."""
    root = ET.fromstring(svg)
    width = float(root.attrib["viewBox"].split()[2])
    return width, [t for t in root.iter("text") if "transform" not in t.attrib]


def _extent(text: ET.Element) -> tuple[float, float]:
    """(left, right) of a horizontal text element, by its anchor and measured width."""
    x, size = float(text.attrib["x"]), float(text.attrib.get("font-size", 13))
    width = _width(text.text or "", size)
    anchor = text.attrib.get("text-anchor", "start")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return left, left + width


@pytest.mark.parametrize(
    "svg",
    [
        dot_interval_chart(
            [Dot(f"{LONG} row", s, 50.0, 40.0, 60.0) for s in (LONG, OTHER)], "t", chance={}
        ),
        line_chart(["easy", "hard"], {LONG: [50.0, 60.0], OTHER: [40.0, None]}, "t"),
        range_chart({"easy": {LONG: 50.0, OTHER: 70.0}}, "t", chance={"easy": 25.0}),
    ],
    ids=["dot-interval", "lines", "range"],
)
def test_every_label_and_legend_entry_fits_the_chart(svg: str) -> None:
    # Before, the legend column was 190 px whatever the names: "openai/qwen2-vl-7b-instruct?b"
    # was all a reader saw of a long name, and a long row label ran off the left edge.
    width, texts = _parse(svg)
    for text in texts:
        left, right = _extent(text)
        assert left >= 0 and right <= width, (text.text, left, right, width)


def test_heatmap_counts_are_12px_below_the_value_and_inside_the_cell() -> None:
    columns = [LONG, OTHER, "m/short"]
    values = {("aspect 0", c): 75.0 for c in columns}
    counts = {("aspect 0", c): 240 for c in columns}
    root = ET.fromstring(heatmap(["aspect 0"], columns, values, "t", counts))
    texts = list(root.iter("text"))
    shown = [t for t in texts if (t.text or "") == "75.0"]
    numbers = [t for t in texts if t.attrib.get("class") == "count"]
    assert len(numbers) == 3 and {t.text for t in numbers} == {"n=240"}
    cells = [r for r in root.iter("rect") if r.attrib.get("fill", "").startswith("rgb")]
    for value, n, cell in zip(shown, numbers, cells, strict=True):
        size = float(n.attrib["font-size"])
        assert size >= 12  # 9 px before
        # DejaVu Sans: ascent 0.93 em, descent 0.24 em. The n line's top clears the value's
        # descenders, and its descenders stay inside the cell.
        assert float(n.attrib["y"]) - 0.93 * size >= float(value.attrib["y"]) + 0.24 * 13
        bottom = float(cell.attrib["y"]) + float(cell.attrib["height"])
        assert float(n.attrib["y"]) + 0.24 * size <= bottom
        assert _width(n.text or "", size) <= float(cell.attrib["width"]) - 4


def test_heatmap_column_labels_fit_above_and_right() -> None:
    columns = [LONG, OTHER]
    svg = heatmap(["aspect 0"], columns, {("aspect 0", c): 50.0 for c in columns}, "t")
    root = ET.fromstring(svg)
    width = float(root.attrib["viewBox"].split()[2])
    slanted = [t for t in root.iter("text") if "transform" in t.attrib]
    assert len(slanted) == 2
    for text in slanted:
        reach = _width(text.text or "", 13)
        x, y = float(text.attrib["x"]), float(text.attrib["y"])
        assert x + reach * math.cos(math.radians(30)) <= width
        assert y - reach * math.sin(math.radians(30)) >= 20  # under the title line


def test_large_counts_are_abbreviated_and_narrow_cells_drop_the_prefix() -> None:
    from lvlmbench.report._svg_heatmap import count_label

    assert count_label(240, 84) == "n=240"
    assert count_label(12_345, 84) == "n=12.3k"
    assert count_label(123_456, 84) == "n=123k"
    assert count_label(12_345, 40) == "12.3k"
