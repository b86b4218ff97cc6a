"""Hand-made inline SVG charts: dot-and-interval, lines, heatmaps, bars and ranges.

Every label passes through :func:`html.escape`; the output is well-formed XML so that it can
be embedded in HTML and parsed back by tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from lvlmbench.report._svg_heatmap import heatmap
from lvlmbench.report._svg_parts import (
    CHANCE_LINE,
    PALETTE,
    Dot,
    label_width,
    legend_width,
    legends,
    nice_ticks,
    svg_document,
    svg_text,
    tick_digits,
    value_grid,
    value_scale,
)

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
    left, plot_w, band = label_width(rows), 460.0, max(26.0, 12.0 * len(series) + 10)
    top = 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 30 + legend_width(series)

    sx = value_scale(lo, hi, left, plot_w)
    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
    body += value_grid(sx, lo, hi, top, height, unit)
    for r, row in enumerate(rows):
        y0 = top + band * r
        body.append(svg_text(left - 6, y0 + band / 2 + 4, row, "end"))
        if chance is not None and row in chance:
            x = sx(chance[row])
            tip = escape(f"chance / {row}: {chance[row]:.1f}{unit}")
            body.append(
                f'<line x1="{x:.1f}" y1="{y0 + 2:.1f}" x2="{x:.1f}" y2="{y0 + band - 2:.1f}" '
                f"{CHANCE_LINE}><title>{tip}</title></line>"
            )
        for d in (d for d in dots if d.row == row):
            s = series.index(d.series)
            colour = PALETTE[s % len(PALETTE)]
            y = y0 + 10 + 12 * s
            body.append(
                f'<line x1="{sx(d.low):.1f}" y1="{y:.1f}" x2="{sx(d.high):.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
            tip = f"{d.series} / {d.row}: {d.value:.1f} ({d.low:.1f}-{d.high:.1f})"
            body.append(
                f'<circle cx="{sx(d.value):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}">'
                f"<title>{escape(tip)}</title></circle>"
            )
    body += legends(series, left + plot_w + 30, top + 10, bool(chance))
    return svg_document(width, height, body, title)


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
    left, top, plot_w, plot_h = 60.0, 36.0, 580.0, 260.0
    width, height = left + plot_w + 30 + legend_width(list(series)), top + plot_h + 44
    n = max(len(x_labels), 1)

    def sx(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n)

    def sy(v: float) -> float:
        return top + plot_h * (1 - (min(max(v, lo), hi) - lo) / (hi - lo))

    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
    ticks = nice_ticks(lo, hi)
    digits = tick_digits(ticks)
    for v in ticks:
        body.append(
            f'<line x1="{left}" y1="{sy(v):.1f}" x2="{left + plot_w}" y2="{sy(v):.1f}" '
            'stroke="#ddd"/>'
        )
        body.append(svg_text(left - 6, sy(v) + 4, f"{v:.{digits}f}", "end"))
    for i, label in enumerate(x_labels):
        body.append(svg_text(sx(i), top + plot_h + 18, label, "middle"))
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
        body.append(f'<polyline points="{path}" fill="none" {CHANCE_LINE}/>')
    drawn = chance is not None and any(v is not None for v in chance)
    body += legends(list(series), left + plot_w + 30, top + 10, drawn)
    return svg_document(width, height, body, title)


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
    left, plot_w, bar = label_width(rows), 440.0, 15.0
    band = bar * len(series) + 10
    top = 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 60 + legend_width(series)
    zero, per = _bar_scale(lo, hi, left, plot_w)
    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
    body += value_grid(value_scale(lo, hi, left, plot_w), lo, hi, top, height, unit)
    if lo < 0 < hi:
        body.append(
            f'<line x1="{zero:.1f}" y1="{top}" x2="{zero:.1f}" y2="{height - 30:.1f}" '
            'stroke="#555"/>'
        )
    for r, row in enumerate(rows):
        y0 = top + band * r
        body.append(svg_text(left - 6, y0 + band / 2 + 4, row, "end"))
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
            body.append(svg_text(tx, y + bar - 2, f"{v:.1f}", anchor))
    if chance is not None:
        x = left + per * (min(max(chance, lo), hi) - lo)
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - 30:.1f}" {CHANCE_LINE}>'
            f"<title>{escape(f'chance: {chance:.1f}{unit}')}</title></line>"
        )
    body += legends(series, left + plot_w + 60, top + 10, chance is not None)
    return svg_document(width, height, body, title)


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
    left, plot_w, band, top = label_width(rows), 420.0, 32.0, 24.0
    height = top + band * len(rows) + 34
    width = left + plot_w + 100 + legend_width(series)

    sx = value_scale(lo, hi, left, plot_w)
    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
    body += value_grid(sx, lo, hi, top, height, unit)
    for r, row in enumerate(rows):
        y = top + band * r + band / 2
        points = values[row]
        body.append(svg_text(left - 6, y + 4, row, "end"))
        if chance is not None and row in chance:
            x = sx(chance[row])
            tip = escape(f"chance / {row}: {chance[row]:.1f}{unit}")
            body.append(
                f'<line x1="{x:.1f}" y1="{y - band / 2 + 2:.1f}" x2="{x:.1f}" '
                f'y2="{y + band / 2 - 2:.1f}" {CHANCE_LINE}><title>{tip}</title></line>'
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
        body.append(svg_text(left + plot_w + 10, y + 4, f"range {high - low:.1f}", "start"))
    body += legends(series, left + plot_w + 100, top + 10, bool(chance))
    return svg_document(width, height, body, title)


def rank_chart(
    x_labels: Sequence[str], ranks: Mapping[str, Sequence[int | None]], title: str
) -> str:
    """Ranks per category, one polyline per series, rank 1 at the top (a "bump" chart)."""
    worst = max([r for values in ranks.values() for r in values if r is not None] + [2])
    left, top, plot_w, plot_h = 60.0, 36.0, 580.0, 28.0 * worst
    width, height = left + plot_w + 30 + legend_width(list(ranks)), top + plot_h + 40
    n = max(len(x_labels), 1)

    def sx(i: int) -> float:
        return left + plot_w * (i + 0.5) / n

    def sy(rank: int) -> float:
        return top + plot_h * (rank - 1) / max(worst - 1, 1)

    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
    for rank in range(1, worst + 1):
        body.append(svg_text(left - 6, sy(rank) + 4, f"#{rank}", "end"))
    for i, label in enumerate(x_labels):
        body.append(svg_text(sx(i), top + plot_h + 24, label, "middle"))
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
    body += legends(list(ranks), left + plot_w + 30, top + 10, chance=False)
    return svg_document(width, height, body, title)
