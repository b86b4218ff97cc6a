"""Find report cells by their data attributes, and one benchmark's section of the page."""

from __future__ import annotations

import re
from html import unescape

_CELL = re.compile(r"<td((?: data-[a-z-]+=\"[^\"]*\")+)>([^<]*)</td>")
_ATTR = re.compile(r" data-([a-z-]+)=\"([^\"]*)\"")


def section(html: str, name: str) -> str:
    """The ``<section>`` of benchmark ``name``."""
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def cells(html: str, **wanted: str) -> list[str]:
    """Texts of every cell whose data attributes are exactly ``wanted`` (unescaped)."""
    want = {k.replace("_", "-"): v for k, v in wanted.items()}
    out = []
    for attrs, text in _CELL.findall(html):
        found = {k: unescape(v) for k, v in _ATTR.findall(attrs)}
        if found == want:
            out.append(unescape(text))
    return out


def cell(html: str, **wanted: str) -> str:
    """The one cell with exactly these data attributes."""
    found = cells(html, **wanted)
    assert len(found) == 1, (wanted, found)
    return found[0]
