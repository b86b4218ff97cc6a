"""The pieces every inline SVG chart is drawn with: the palette, the frame, text, legends,
value scales and grids, the chance line. Every label passes through :func:`html.escape`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
FONT = 'font-family="sans-serif" font-size="11"'


@dataclass(frozen=True)
class Dot:
    """One point with an interval, drawn in row ``row`` and colour series ``series``."""

    row: str
    series: str
    value: float
    low: float
    high: float


def svg_document(width: float, height: float, body: list[str], title: str) -> str:
    return (
        f'<svg width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def svg_text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT} {extra}>{escape(text)}</text>'
    )


def series_legend(series: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, name in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        yy = y + 16 * i
        out.append(f'<rect x="{x:.1f}" y="{yy - 9:.1f}" width="10" height="10" fill="{colour}"/>')
        out.append(svg_text(x + 14, yy, name))
    return out


def value_scale(lo: float, hi: float, left: float, plot_w: float) -> Callable[[float], float]:
    """x of a value on a horizontal axis from ``lo`` to ``hi`` (values outside are clamped)."""

    def sx(v: float) -> float:
        return left + plot_w * (min(max(v, lo), hi) - lo) / (hi - lo)

    return sx


def value_grid(
    sx: Callable[[float], float], lo: float, hi: float, top: float, height: float, unit: str
) -> list[str]:
    """Five vertical grid lines with their values under the plot (decimals enough to tell the
    ticks of a 0-1 or 0-10 axis apart)."""
    span = hi - lo
    digits = 0 if span >= 20 else 1 if span >= 2 else 2
    body = []
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        x = sx(v)
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - 30:.1f}" stroke="#ddd"/>'
        )
        body.append(svg_text(x, height - 16, f"{v:.{digits}f}{unit}", "middle"))
    return body


CHANCE_LINE = 'stroke="#555" stroke-width="1.5" stroke-dasharray="4 3" class="chance"'


def chance_legend(x: float, y: float) -> list[str]:
    return [
        f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 10:.1f}" y2="{y - 4:.1f}" {CHANCE_LINE}/>',
        svg_text(x + 14, y, "chance"),
    ]
