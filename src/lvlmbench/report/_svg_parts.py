"""The pieces every inline SVG chart is drawn with: the palette, the frame, text, legends,
value scales and grids, the chance line. Every label passes through :func:`html.escape`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from math import ceil, floor, log10

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
# 13 px text on a chart drawn about 860 px wide stays readable when the page scales it down.
FONT_SIZE = 13
FONT = f'font-family="sans-serif" font-size="{FONT_SIZE}"'
LEGEND_STEP = 18.0
CHAR_WIDTH = 0.62 * FONT_SIZE
"""A generous average advance of one character of 13 px sans-serif (DejaVu Sans, the widest
common default, averages about 0.6 em over model names): SVG text does not wrap, so room for
a label is reserved from its length, and this errs on the wide side."""
LEGEND_MIN = 190.0
"""The legend column's width when every name is short."""
LABEL_MIN = 200.0
"""The row labels' column's width when every label is short."""


def text_width(text: str) -> float:
    """The width ``text`` takes at :data:`FONT_SIZE` (an upper estimate, see CHAR_WIDTH)."""
    return CHAR_WIDTH * len(text)


def legend_width(series: Sequence[str]) -> float:
    """Room for the legend: the swatch, the longest name in full (a legend entry is never
    cut), and a margin."""
    shown = [*series, "chance"] if len(series) > 1 else ["chance"]
    return max(LEGEND_MIN, 14 + max(text_width(s) for s in shown) + 12)


def label_width(labels: Sequence[str]) -> float:
    """Room left of the plot for right-aligned row labels, each shown in full."""
    return max([LABEL_MIN, *(text_width(label) + 14 for label in labels)])


@dataclass(frozen=True)
class Dot:
    """One point with an interval, drawn in row ``row`` and colour series ``series``."""

    row: str
    series: str
    value: float
    low: float
    high: float


def svg_document(width: float, height: float, body: list[str], title: str) -> str:
    """The frame: responsive (fills its column, never wider than drawn, aspect kept)."""
    return (
        f'<svg width="100%" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'style="max-width:{width:.0f}px;height:auto" role="img">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def svg_text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT} {extra}>{escape(text)}</text>'
    )


def series_legend(series: Sequence[str], x: float, y: float) -> list[str]:
    """One swatch and name per series; none for a single series, whose name the title or the
    row labels already say (a one-entry legend only takes room)."""
    if len(series) < 2:
        return []
    out = []
    for i, name in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        yy = y + LEGEND_STEP * i
        out.append(f'<rect x="{x:.1f}" y="{yy - 9:.1f}" width="10" height="10" fill="{colour}"/>')
        out.append(svg_text(x + 14, yy, name))
    return out


def value_scale(lo: float, hi: float, left: float, plot_w: float) -> Callable[[float], float]:
    """x of a value on a horizontal axis from ``lo`` to ``hi`` (values outside are clamped)."""

    def sx(v: float) -> float:
        return left + plot_w * (min(max(v, lo), hi) - lo) / (hi - lo)

    return sx


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Tick values inside ``[lo, hi]`` at a round step (1, 2, 2.5 or 5 times a power of ten),
    about ``target`` intervals: 0/20/40/60/80/100 for 0-100, never 2/14/25/37/49."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / max(target, 1)
    power = 10.0 ** floor(log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw * 0.999)
    first, last = ceil(lo / step - 1e-9), floor(hi / step + 1e-9)
    # round() removes the float noise of k * step (0.30000000000000004) from printed labels.
    return [round(k * step, 12) + 0.0 for k in range(first, last + 1)]


def tick_digits(ticks: Sequence[float]) -> int:
    """Decimals enough to print every tick exactly (0 for 0/20/40, 1 for 0.5 steps, ...)."""
    for digits in range(4):
        if all(abs(t * 10**digits - round(t * 10**digits)) < 1e-6 for t in ticks):
            return digits
    return 4


def value_grid(
    sx: Callable[[float], float], lo: float, hi: float, top: float, height: float, unit: str
) -> list[str]:
    """Vertical grid lines at round values (:func:`nice_ticks`) with the values under the
    plot."""
    ticks = nice_ticks(lo, hi)
    digits = tick_digits(ticks)
    body = []
    for v in ticks:
        x = sx(v)
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - 30:.1f}" stroke="#ddd"/>'
        )
        body.append(svg_text(x, height - 16, f"{v:.{digits}f}{unit}", "middle"))
    return body


CHANCE_LINE = 'stroke="#555" stroke-width="1.5" stroke-dasharray="4 3" class="chance"'


def legends(series: Sequence[str], x: float, y: float, chance: bool) -> list[str]:
    """The series legend (when there are two or more series) and, under it, the chance line's
    entry when one is drawn."""
    shown = len(series) if len(series) > 1 else 0
    out = series_legend(series, x, y)
    if chance:
        out += chance_legend(x, y + LEGEND_STEP * shown)
    return out


def chance_legend(x: float, y: float) -> list[str]:
    return [
        f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 10:.1f}" y2="{y - 4:.1f}" {CHANCE_LINE}/>',
        svg_text(x + 14, y, "chance"),
    ]
