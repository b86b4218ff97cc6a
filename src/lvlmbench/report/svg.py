"""Hand-made inline SVG charts: dot-and-interval, lines, heatmaps, bars and ranges.

Every label passes through :func:`html.escape`; the output is well-formed XML so that it can
be embedded in HTML and parsed back by tests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "PALETTE",
    "Dot",
    "bar_chart",
    "dot_interval_chart",
    "heatmap",
    "line_chart",
    "range_chart",
    "rank_chart",
]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_FONT = 'font-family="sans-serif" font-size="11"'


@dataclass(frozen=True)
class Dot:
    """One point with an interval, drawn in row ``row`` and colour series ``series``."""

    row: str
    series: str
    value: float
    low: float
    high: float


def _svg(width: float, height: float, body: list[str], title: str) -> str:
    return (
        f'<svg width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {_FONT} {extra}>'
        f"{escape(text)}</text>"
    )


def _legend(series: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, name in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        yy = y + 16 * i
        out.append(f'<rect x="{x:.1f}" y="{yy - 9:.1f}" width="10" height="10" fill="{colour}"/>')
        out.append(_text(x + 14, yy, name))
    return out


def _value_scale(lo: float, hi: float, left: float, plot_w: float) -> Callable[[float], float]:
    """x of a value on a horizontal axis from ``lo`` to ``hi`` (values outside are clamped)."""

    def sx(v: float) -> float:
        return left + plot_w * (min(max(v, lo), hi) - lo) / (hi - lo)

    return sx


def _value_grid(
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
        body.append(_text(x, height - 16, f"{v:.{digits}f}{unit}", "middle"))
    return body


_CHANCE = 'stroke="#555" stroke-width="1.5" stroke-dasharray="4 3" class="chance"'


def _chance_legend(x: float, y: float) -> list[str]:
    return [
        f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 10:.1f}" y2="{y - 4:.1f}" {_CHANCE}/>',
        _text(x + 14, y, "chance"),
    ]


def dot_interval_chart(
    dots: Sequence[Dot],
    title: str,
    lo: float = 0.0,
    hi: float = 100.0,
    unit: str = "%",
    chance: Mapping[str, float] | None = None,
) -> str:
    """Horizontal dot-and-whisker chart: one band per row, one offset dot per series.

    ``chance`` (value per row) draws a dashed vertical line across that row's band: the score
    a uniform guesser gets there, which differs per row when option counts do."""
    rows = list(dict.fromkeys(d.row for d in dots))
    series = list(dict.fromkeys(d.series for d in dots))
    if hi <= lo:
        hi = lo + 1.0
    left, plot_w, band = 170.0, 420.0, max(18.0, 10.0 * len(series) + 8)
    top = 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 30 + 190

    sx = _value_scale(lo, hi, left, plot_w)
    body = [_text(8, 14, title, extra='font-weight="bold"')]
    body += _value_grid(sx, lo, hi, top, height, unit)
    for r, row in enumerate(rows):
        y0 = top + band * r
        body.append(_text(left - 6, y0 + band / 2 + 4, row, "end"))
        if chance is not None and row in chance:
            x = sx(chance[row])
            tip = escape(f"chance / {row}: {chance[row]:.1f}{unit}")
            body.append(
                f'<line x1="{x:.1f}" y1="{y0 + 2:.1f}" x2="{x:.1f}" y2="{y0 + band - 2:.1f}" '
                f"{_CHANCE}><title>{tip}</title></line>"
            )
        for d in (d for d in dots if d.row == row):
            s = series.index(d.series)
            colour = PALETTE[s % len(PALETTE)]
            y = y0 + 8 + 10 * s
            body.append(
                f'<line x1="{sx(d.low):.1f}" y1="{y:.1f}" x2="{sx(d.high):.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
            tip = f"{d.series} / {d.row}: {d.value:.1f} ({d.low:.1f}-{d.high:.1f})"
            body.append(
                f'<circle cx="{sx(d.value):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}">'
                f"<title>{escape(tip)}</title></circle>"
            )
    body += _legend(series, left + plot_w + 30, top + 10)
    if chance:
        body += _chance_legend(left + plot_w + 30, top + 10 + 16 * len(series))
    return _svg(width, height, body, title)


def line_chart(
    x_labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    title: str,
    lo: float = 0.0,
    hi: float = 100.0,
    chance: Sequence[float | None] | None = None,
) -> str:
    """One polyline per series over categorical x positions (None leaves a gap); ``chance``
    (per x position) is drawn as a dashed grey line."""
    left, top, plot_w, plot_h = 50.0, 34.0, 360.0, 200.0
    width, height = left + plot_w + 30 + 190, top + plot_h + 40
    n = max(len(x_labels), 1)

    def sx(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n)

    def sy(v: float) -> float:
        return top + plot_h * (1 - (min(max(v, lo), hi) - lo) / (hi - lo))

    body = [_text(8, 14, title, extra='font-weight="bold"')]
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        body.append(
            f'<line x1="{left}" y1="{sy(v):.1f}" x2="{left + plot_w}" y2="{sy(v):.1f}" '
            'stroke="#ddd"/>'
        )
        body.append(_text(left - 6, sy(v) + 4, f"{v:.0f}", "end"))
    for i, label in enumerate(x_labels):
        body.append(_text(sx(i), top + plot_h + 18, label, "middle"))
    for s, (name, values) in enumerate(series.items()):
        colour = PALETTE[s % len(PALETTE)]
        points = [(sx(i), sy(v)) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            body.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for (x, y), v in zip(points, [v for v in values if v is not None], strict=True):
            body.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}">'
                f"<title>{escape(f'{name}: {v:.1f}')}</title></circle>"
            )
    if chance is not None and any(v is not None for v in chance):
        points = [(sx(i), sy(v)) for i, v in enumerate(chance) if v is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        if len(points) == 1:  # one level: a short dash is still a visible line
            x, y = points[0]
            path = f"{x - 20:.1f},{y:.1f} {x + 20:.1f},{y:.1f}"
        body.append(f'<polyline points="{path}" fill="none" {_CHANCE}/>')
    body += _legend(list(series), left + plot_w + 30, top + 10)
    if chance is not None and any(v is not None for v in chance):
        body += _chance_legend(left + plot_w + 30, top + 10 + 16 * len(series))
    return _svg(width, height, body, title)


def _cell_colour(value: float) -> str:
    """Red (0) through pale yellow (50) to green (100)."""
    t = min(max(value / 100.0, 0.0), 1.0)
    low, mid, high = (235, 125, 115), (250, 230, 140), (90, 185, 105)
    a, b, u = (low, mid, t * 2) if t < 0.5 else (mid, high, t * 2 - 1)
    r, g, bl = (round(x + (y - x) * u) for x, y in zip(a, b, strict=True))
    return f"rgb({r},{g},{bl})"


def heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: dict[tuple[str, str], float],
    title: str,
    counts: Mapping[tuple[str, str], int] | None = None,
    near_chance: Collection[tuple[str, str]] = (),
) -> str:
    """Rows × columns grid coloured by value (0-100), the value printed in each cell.

    ``counts`` adds each cell's n under its value; cells in ``near_chance`` (their interval
    includes the chance rate) are hatched and greyed, with a legend saying so, because their
    colour says nothing a guesser would not also score."""
    left, top, cw = 200.0, 90.0, 90.0
    ch = 30.0 if counts is not None else 22.0
    legend = 24.0 if near_chance else 0.0
    width, height = left + cw * len(columns) + 90, top + ch * len(rows) + 10 + legend
    body = [_text(8, 14, title, extra='font-weight="bold"')]
    # One page holds a heatmap per benchmark: the pattern's id must be unique yet reproducible.
    seen = repr((title, rows, columns, sorted(values.items()), sorted(near_chance)))
    digest = hashlib.sha1(seen.encode()).hexdigest()[:10]
    pattern = f"near-chance-{digest}"
    if near_chance:
        body.append(
            f'<defs><pattern id="{pattern}" width="6" height="6" '
            'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            '<line x1="0" y1="0" x2="0" y2="6" stroke="#666" stroke-width="1.5"/>'
            "</pattern></defs>"
        )
    for j, col in enumerate(columns):
        x = left + cw * (j + 0.5)
        body.append(_text(x, top - 8, col, "start", f'transform="rotate(-30 {x:.1f} {top - 8})"'))
    for i, row in enumerate(rows):
        y = top + ch * i
        body.append(_text(left - 6, y + ch / 2 + 4, row, "end"))
        for j, col in enumerate(columns):
            body += _heat_cell(
                left + cw * j,
                y,
                (cw, ch),
                values.get((row, col)),
                None if counts is None else counts.get((row, col)),
                pattern if (row, col) in near_chance else None,
            )
    if near_chance:
        y = top + ch * len(rows) + 10
        body.append(
            f'<rect x="{left:.1f}" y="{y:.1f}" width="14" height="12" fill="url(#{pattern})" '
            'stroke="#999"/>'
        )
        body.append(_text(left + 20, y + 10, "95% interval includes chance: not above guessing"))
    return _svg(width, height, body, title)


def _heat_cell(
    x: float,
    y: float,
    size: tuple[float, float],
    v: float | None,
    n: int | None,
    pattern: str | None,
) -> list[str]:
    """One cell; ``pattern`` (the hatching's id) when its interval includes chance."""
    cw, ch = size
    near = pattern is not None
    fill = "#eee" if v is None else "#ddd" if near else _cell_colour(v)
    mark = ' data-near-chance="1"' if near else ""
    out = [
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw - 2}" height="{ch - 2}" fill="{fill}"{mark}/>'
    ]
    if near:
        out.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw - 2}" height="{ch - 2}" '
            f'fill="url(#{pattern})" opacity="0.35"/>'
        )
    label = "-" if v is None else f"{v:.1f}"
    if n is None:
        out.append(_text(x + cw / 2 - 1, y + ch / 2 + 3, label, "middle"))
        return out
    out.append(_text(x + cw / 2 - 1, y + 12, label, "middle"))
    # Not _text: its font attributes are fixed, and a second font-size would be bad XML.
    out.append(
        f'<text x="{x + cw / 2 - 1:.1f}" y="{y + 24:.1f}" text-anchor="middle" '
        f'font-family="sans-serif" font-size="9" fill="#444">n={n}</text>'
    )
    return out


def _bar_scale(lo: float, hi: float, left: float, width: float) -> tuple[float, float]:
    """(x of zero clamped into the axis, pixels per unit)."""
    per = width / (hi - lo)
    return left + per * (min(max(0.0, lo), hi) - lo), per


def bar_chart(
    rows: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], float],
    title: str,
    lo: float = 0.0,
    hi: float = 100.0,
    unit: str = "%",
    chance: float | None = None,
) -> str:
    """Horizontal grouped bars from zero (negative values go left), the value at each bar's end.

    Used for signed figures such as bias rates, so the zero line is drawn when it is in range;
    ``chance`` (one value for the whole chart) draws a dashed line at the guessing rate.
    """
    if hi <= lo:
        hi = lo + 1.0
    left, plot_w, bar = 170.0, 420.0, 11.0
    band = bar * len(series) + 10
    top = 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 60 + 150
    zero, per = _bar_scale(lo, hi, left, plot_w)
    body = [_text(8, 14, title, extra='font-weight="bold"')]
    body += _value_grid(_value_scale(lo, hi, left, plot_w), lo, hi, top, height, unit)
    if lo < 0 < hi:
        body.append(
            f'<line x1="{zero:.1f}" y1="{top}" x2="{zero:.1f}" y2="{height - 30:.1f}" '
            'stroke="#555"/>'
        )
    for r, row in enumerate(rows):
        y0 = top + band * r
        body.append(_text(left - 6, y0 + band / 2 + 4, row, "end"))
        for s, name in enumerate(series):
            value = values.get((row, name))
            if value is None:
                continue
            v = value
            end = left + per * (min(max(v, lo), hi) - lo)
            y = y0 + 5 + bar * s
            x, w = min(zero, end), abs(end - zero)
            colour = PALETTE[s % len(PALETTE)]
            tip = escape(f"{name} / {row}: {v:.1f}{unit}")
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{bar - 2}" '
                f'fill="{colour}"><title>{tip}</title></rect>'
            )
            tx, anchor = (end + 3, "start") if v >= 0 else (end - 3, "end")
            body.append(_text(tx, y + bar - 2, f"{v:.1f}", anchor))
    if chance is not None:
        x = left + per * (min(max(chance, lo), hi) - lo)
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - 30:.1f}" {_CHANCE}>'
            f"<title>{escape(f'chance: {chance:.1f}{unit}')}</title></line>"
        )
        body += _chance_legend(left + plot_w + 60, top + 10 + 16 * len(series))
    body += _legend(series, left + plot_w + 60, top + 10)
    return _svg(width, height, body, title)


def range_chart(
    values: Mapping[str, Mapping[str, float]],
    title: str,
    lo: float = 0.0,
    hi: float = 100.0,
    unit: str = "%",
    chance: Mapping[str, float] | None = None,
) -> str:
    """Per row, a grey bar from the lowest to the highest value with every series' dot on it and
    the range written beside it: how far apart the series are on that row. ``chance`` (per
    row) draws a dashed line across the row where a uniform guesser would score."""
    rows = list(values)
    series = list(dict.fromkeys(s for row in values.values() for s in row))
    left, plot_w, band, top = 170.0, 420.0, 30.0, 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 100 + 190

    sx = _value_scale(lo, hi, left, plot_w)
    body = [_text(8, 14, title, extra='font-weight="bold"')]
    body += _value_grid(sx, lo, hi, top, height, unit)
    for r, row in enumerate(rows):
        y = top + band * r + band / 2
        points = values[row]
        body.append(_text(left - 6, y + 4, row, "end"))
        if chance is not None and row in chance:
            x = sx(chance[row])
            tip = escape(f"chance / {row}: {chance[row]:.1f}{unit}")
            body.append(
                f'<line x1="{x:.1f}" y1="{y - band / 2 + 2:.1f}" x2="{x:.1f}" '
                f'y2="{y + band / 2 - 2:.1f}" {_CHANCE}><title>{tip}</title></line>'
            )
        if not points:
            continue
        low, high = min(points.values()), max(points.values())
        body.append(
            f'<rect x="{sx(low):.1f}" y="{y - 5:.1f}" width="{sx(high) - sx(low):.1f}" '
            'height="10" fill="#ccc"/>'
        )
        for name, v in points.items():
            colour = PALETTE[series.index(name) % len(PALETTE)]
            body.append(
                f'<circle cx="{sx(v):.1f}" cy="{y:.1f}" r="4" fill="{colour}" stroke="#fff">'
                f"<title>{escape(f'{name} / {row}: {v:.1f}{unit}')}</title></circle>"
            )
        body.append(_text(left + plot_w + 10, y + 4, f"range {high - low:.1f}", "start"))
    body += _legend(series, left + plot_w + 100, top + 10)
    if chance:
        body += _chance_legend(left + plot_w + 100, top + 10 + 16 * len(series))
    return _svg(width, height, body, title)


def rank_chart(
    x_labels: Sequence[str], ranks: Mapping[str, Sequence[int | None]], title: str
) -> str:
    """Ranks per category, one polyline per series, rank 1 at the top (a "bump" chart)."""
    worst = max([r for values in ranks.values() for r in values if r is not None] + [2])
    left, top, plot_w, plot_h = 50.0, 34.0, 360.0, 24.0 * worst
    width, height = left + plot_w + 30 + 190, top + plot_h + 40
    n = max(len(x_labels), 1)

    def sx(i: int) -> float:
        return left + plot_w * (i + 0.5) / n

    def sy(rank: int) -> float:
        return top + plot_h * (rank - 1) / max(worst - 1, 1)

    body = [_text(8, 14, title, extra='font-weight="bold"')]
    for rank in range(1, worst + 1):
        body.append(_text(left - 6, sy(rank) + 4, f"#{rank}", "end"))
    for i, label in enumerate(x_labels):
        body.append(_text(sx(i), top + plot_h + 24, label, "middle"))
    for s, (name, values) in enumerate(ranks.items()):
        colour = PALETTE[s % len(PALETTE)]
        points = [(sx(i), sy(r), r) for i, r in enumerate(values) if r is not None]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
            body.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        body += [
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
            f"<title>{escape(f'{name}: #{r}')}</title></circle>"
            for x, y, r in points
        ]
    body += _legend(list(ranks), left + plot_w + 30, top + 10)
    return _svg(width, height, body, title)
