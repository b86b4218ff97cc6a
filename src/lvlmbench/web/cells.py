"""Links from leaderboard cells to the items behind them.

The leaderboard section is the static report's HTML (no links: the report is one offline
file). Its accuracy cells carry ``data-model``, ``data-facet`` and ``data-group``; here each
cell's number becomes a link to the item browser filtered to that model and group, so the
report's modules stay the same for the file and the web.
"""

from __future__ import annotations

import re
from html import escape, unescape
from urllib.parse import quote, urlencode

__all__ = ["cell_items_url", "link_cells"]

# The report writes attribute values with html.escape (quotes included) and the number as
# plain text, so neither can contain the delimiters these patterns stop at.
_CELL = re.compile(r'<td class="acc"(?P<attrs>[^>]*)>(?P<text>[^<]*)</td>')
_ATTR = re.compile(r'data-(?P<key>[a-z_-]+)="(?P<value>[^"]*)"')
_FILTERS = {"capability": "capability", "difficulty": "difficulty", "fine_aspect": "aspect"}
"""Report facet → item browser filter; ``overall`` needs none."""


def cell_items_url(benchmark: str, model: str, facet: str, group: str) -> str | None:
    """The item browser URL behind one accuracy cell (None for a facet it cannot filter)."""
    query = {"model": model}
    if facet != "overall":
        if facet not in _FILTERS:
            return None
        query[_FILTERS[facet]] = group
    return f"/b/{quote(benchmark, safe='')}/items?{urlencode(query)}"


def link_cells(html: str, benchmark: str) -> str:
    """``html`` with every accuracy cell's number linked to its items."""

    def link(match: re.Match[str]) -> str:
        attrs = {m["key"]: unescape(m["value"]) for m in _ATTR.finditer(match["attrs"])}
        if "model" not in attrs or "facet" not in attrs:
            return match[0]
        url = cell_items_url(benchmark, attrs["model"], attrs["facet"], attrs.get("group", ""))
        if url is None:
            return match[0]
        text = match["text"]
        return f'<td class="acc"{match["attrs"]}><a href="{escape(url)}">{text}</a></td>'

    return _CELL.sub(link, html)
