"""The read-only JSON API: benchmarks, leaderboards and items, computed by the same functions as
the pages (so the numbers are the pages' numbers), behind the same Host allow-list.

``GET /api/benchmarks``, ``GET /api/b/{name}/leaderboard``, ``GET /api/b/{name}/items`` (the
item browser's filters, paginated) and ``GET /api/b/{name}/items/{id}`` (the transcript).
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Request

from lvlmbench.report import benchmark_summary, leaderboard_rows
from lvlmbench.types import BenchmarkItem, Response
from lvlmbench.web import queries
from lvlmbench.web._params import item_filter
from lvlmbench.web._render import figures_of, require_benchmark, store_of
from lvlmbench.web.cells import cell_items_url
from lvlmbench.web.queries import (
    ItemFilter,
    ItemRow,
    benchmark_listing,
    filter_items,
    filtered_ids,
    find_item,
    item_judgments,
    item_responses,
    outcome,
)
from lvlmbench.web.transcript import Transcript, item_neighbours, transcripts

__all__ = ["router"]

router = APIRouter(prefix="/api")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as null (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _json(body: dict[str, Any]) -> dict[str, Any]:
    cleaned: dict[str, Any] = _finite(body)
    return cleaned


def _item_url(benchmark: str, item_id: str) -> str:
    return f"/b/{quote(benchmark, safe='')}/items/{quote(item_id, safe='')}"


@router.get("/benchmarks")
def benchmarks(request: Request) -> dict[str, Any]:
    """Every benchmark with its kind, item count, models and position-bias copies."""
    return {"benchmarks": [asdict(b) for b in benchmark_listing(store_of(request))]}


@router.get("/b/{name}/leaderboard")
def leaderboard(request: Request, name: str) -> dict[str, Any]:
    """The leaderboard page's figures: every section's data (``summary``, what the page
    renders) and one row per model (``rows``, the ``leaderboard.csv`` columns)."""
    require_benchmark(request, name)
    store = store_of(request)
    # A copy: the cached summary is shared by later requests and the links are added below.
    summary = copy.deepcopy(
        figures_of(request).get(("summary", name), lambda: benchmark_summary(store, name))
    )
    for row in summary["overall"]:
        row["items_url"] = cell_items_url(name, row["model"], "overall", "all")
    rows = [row.flat() for row in leaderboard_rows({"benchmarks": [summary]})]
    return _json({"benchmark": name, "summary": summary, "rows": rows})


def _response(response: Response | None) -> dict[str, Any] | None:
    return None if response is None else response.model_dump(mode="json")


def _listed(benchmark: str, row: ItemRow) -> dict[str, Any]:
    return {
        **row.item.model_dump(mode="json"),
        "facets": row.facets,
        "url": _item_url(benchmark, row.item.id),
        "response": _response(row.response),
        "outcome": row.outcome,
        "verdict": row.verdict,
    }


@router.get("/b/{name}/items")
def items(
    request: Request, name: str, wanted: Annotated[ItemFilter, Depends(item_filter)]
) -> dict[str, Any]:
    """The item browser's page ``page`` for the same filters (``model``, ``capability``,
    ``aspect``, ``difficulty``, ``outcome``, ``verdict``, ``q``, ``right``, ``wrong``)."""
    require_benchmark(request, name)
    found = filter_items(store_of(request), name, wanted)
    return _json(
        {
            "benchmark": name,
            "total": found.total,
            "page": min(wanted.page, found.pages),
            "pages": found.pages,
            "page_size": queries.PAGE_SIZE,
            "models": found.models,
            "items": [_listed(name, row) for row in found.rows],
        }
    )


def _transcript(t: Transcript) -> dict[str, Any]:
    return {
        "response": _response(t.response),
        "outcome": t.outcome,
        "messages": [asdict(m) for m in t.messages],
        "messages_note": t.messages_note or None,
        "call": asdict(t.call) if t.call is not None else None,
        "call_note": t.call_note or None,
    }


@router.get("/b/{name}/items/{item_id}")
def item(
    request: Request, name: str, item_id: str, wanted: Annotated[ItemFilter, Depends(item_filter)]
) -> dict[str, Any]:
    """The item page's content: the item, its neighbours (among the filtered items when the
    browser's filters are given), one transcript per response (the messages as sent, the
    reply, extraction, tokens, latency, cost, cache) and judgments."""
    require_benchmark(request, name)
    store = store_of(request)
    found: BenchmarkItem | None = find_item(store, name, item_id)
    if found is None:
        raise HTTPException(404, f"no item {item_id!r} in benchmark {name!r}")
    answers = [(r, outcome(found, r)) for r in item_responses(store, item_id)]
    within = filtered_ids(store, name, wanted) if wanted.is_set() else None
    return _json(
        {
            "item": found.model_dump(mode="json"),
            "url": _item_url(name, item_id),
            "neighbours": item_neighbours(store, name, item_id, within),
            "transcripts": [_transcript(t) for t in transcripts(store, found, answers)],
            "judgments": [j.model_dump(mode="json") for j in item_judgments(store, item_id)],
        }
    )
