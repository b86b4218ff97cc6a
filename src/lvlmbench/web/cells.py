"""Links from leaderboard cells to the items behind them: the web app passes
:func:`cell_links` to the report's renderer, so each accuracy cell's number links to the item
browser filtered to that model and group (the offline report file has no links)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from lvlmbench.report import CellLink

__all__ = ["cell_items_url", "cell_links"]

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


def cell_links(benchmark: str) -> CellLink:
    """The renderer's link builder for ``benchmark``'s accuracy cells."""

    def link(model: str, facet: str, group: str) -> str | None:
        return cell_items_url(benchmark, model, facet, group)

    return link
