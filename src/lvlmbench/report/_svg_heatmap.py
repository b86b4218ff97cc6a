"""The heatmap chart (models × groups, a value and its n per cell, cells whose interval includes
chance hatched)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence

from lvlmbench.report._svg_parts import label_width, svg_document, svg_text, text_width

COUNT_FONT = 12
"""The n under each cell's value: small beside the value, still readable (at least 12 px)."""
_SLANT = (0.5, 0.866)
"""sin and cos of the column labels' 30° slant: how far up and right a label reaches."""


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
    left, cw = label_width(rows), 90.0
    # Room above and right of the grid for the slanted column labels, each shown in full.
    reach = max([0.0, *(text_width(c) for c in columns)])
    top = max(90.0, 30 + _SLANT[0] * reach)
    ch = 38.0 if counts is not None else 22.0
    legend = 24.0 if near_chance else 0.0
    right = max(90.0, _SLANT[1] * reach - cw / 2 + 10)
    width, height = left + cw * len(columns) + right, top + ch * len(rows) + 10 + legend
    body = [svg_text(8, 14, title, extra='font-weight="bold"')]
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
        body.append(
            svg_text(x, top - 8, col, "start", f'transform="rotate(-30 {x:.1f} {top - 8})"')
        )
    for i, row in enumerate(rows):
        y = top + ch * i
        body.append(svg_text(left - 6, y + ch / 2 + 4, row, "end"))
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
        body.append(svg_text(left + 20, y + 10, "95% interval includes chance: not above guessing"))
    return svg_document(width, height, body, title)


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
        out.append(svg_text(x + cw / 2 - 1, y + ch / 2 + 3, label, "middle"))
        return out
    # Value on the first line, n on the second: 13 px and 12 px text in a 36 px cell, with
    # 3 px between them.
    out.append(svg_text(x + cw / 2 - 1, y + 15, label, "middle"))
    # Not svg_text: its font attributes are fixed, and a second font-size would be bad XML.
    out.append(
        f'<text x="{x + cw / 2 - 1:.1f}" y="{y + 31:.1f}" text-anchor="middle" '
        f'font-family="sans-serif" font-size="{COUNT_FONT}" fill="#333" class="count">'
        f"{count_label(n, cw - 6)}</text>"
    )
    return out


def count_label(n: int, room: float) -> str:
    """``n=…`` as it fits ``room`` pixels at 12 px: ``n=240``, large counts abbreviated
    (``n=12.5k``), and the ``n=`` dropped where even that is too wide."""
    text = str(n) if n < 10_000 else f"{n / 1000:.1f}k" if n < 100_000 else f"{n // 1000}k"
    per_char = COUNT_FONT * 0.62
    return f"n={text}" if per_char * (len(text) + 2) <= room else text
