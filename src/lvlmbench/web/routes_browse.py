"""Read-only pages: benchmarks, leaderboards (the report's charts), the item browser, one item,
and images by content hash."""

from __future__ import annotations

import re
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from markupsafe import Markup

from lvlmbench.judging import HUMAN
from lvlmbench.judging.human_checks import CHECKS, check_summaries
from lvlmbench.report import benchmark_summary, board_names, render_benchmark, report_css
from lvlmbench.report.render_comparisons import comparisons_section
from lvlmbench.report.render_style import style_block
from lvlmbench.store import Store
from lvlmbench.web._params import browser_query, item_filter
from lvlmbench.web._render import (
    figures_of,
    render,
    require_benchmark,
    store_of,
    votable_here,
)
from lvlmbench.web.cells import cell_links
from lvlmbench.web.queries import (
    OUTCOMES,
    VERDICTS,
    ItemFilter,
    benchmark_listing,
    filter_items,
    filtered_ids,
    find_item,
    item_judgments,
    item_responses,
    outcome,
)
from lvlmbench.web.submissions import list_submissions
from lvlmbench.web.transcript import item_neighbours, transcripts
from lvlmbench.workflows.compare import against_the_best, stored_players

__all__ = ["router"]

router = APIRouter()
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> Response:
    listed = benchmark_listing(store_of(request))
    votable = {b.name: votable_here(request, b.name) for b in listed}
    return render(request, "index.html", benchmarks=listed, votable=votable)


@router.get("/b/{name}", response_class=HTMLResponse)
def leaderboard(request: Request, name: str) -> Response:
    """The benchmark's leaderboard: the static report's section (same numbers, same charts)
    plus what people added here: votes, alignment checks and submissions."""
    require_benchmark(request, name)
    store = store_of(request)
    figures = figures_of(request)
    html, votes = figures.get(("section", name), lambda: _section(store, name))
    # What people added (checks, submissions) is stored as judgments and artifacts, which
    # raise the revision too: kept alike, so an unchanged store is one query per view.
    checks, submissions = figures.get(
        ("people", name), lambda: (check_summaries(store, name), list_submissions(store, name))
    )
    human_style = style_block(votes["ratings"]) if votes else ""
    return render(
        request,
        "benchmark.html",
        name=name,
        section=Markup(html),
        checks=checks,
        check_labels=CHECKS,
        votes=votes,
        human_style=Markup(human_style),  # escaped by the report renderer
        submissions=submissions,
    )


def _section(store: Store, name: str) -> tuple[str, dict[str, Any] | None]:
    """The report's section of the benchmark, but its human-votes part, and that part's data
    (None without votes): this page shows people's votes in its own block."""
    bench = benchmark_summary(store, name)
    # Built by the report with every store string escaped (its tests feed hostile names).
    html = render_benchmark(bench, link=cell_links(name), leave_out=(HUMAN,))
    votes = bench.get("human") or []
    return html, votes[0] if votes else None


@router.get("/b/{name}/compare", response_class=HTMLResponse)
def comparisons(request: Request, name: str, baseline: str | None = None) -> Response:
    """Every model against ``baseline`` (default: the best), as the report's Comparisons
    section shows it; a baseline without scores here is a 404."""
    require_benchmark(request, name)
    store = store_of(request)
    if baseline is not None and baseline not in set(stored_players(store, name)):
        raise HTTPException(404, f"no model {baseline!r} with scores on {name!r}")
    table = figures_of(request).get(
        ("compare", name, baseline or ""), lambda: against_the_best(store, name, baseline)
    )
    names = _names(request, store, name)
    section = "" if table is None else comparisons_section(table, names, legend=True)
    return render(request, "compare.html", name=name, section=Markup(section))


@router.get("/b/{name}/items", response_class=HTMLResponse)
def items(
    request: Request, name: str, wanted: Annotated[ItemFilter, Depends(item_filter)]
) -> Response:
    require_benchmark(request, name)
    found = filter_items(store_of(request), name, wanted)
    query = browser_query(wanted)
    return render(
        request,
        "items.html",
        name=name,
        found=found,
        wanted=wanted,
        query=query,
        outcomes=OUTCOMES,
        verdicts=VERDICTS,
    )


@router.get("/b/{name}/items/{item_id}", response_class=HTMLResponse)
def item(
    request: Request, name: str, item_id: str, wanted: Annotated[ItemFilter, Depends(item_filter)]
) -> Response:
    """One item as a transcript; with the browser's filters, previous/next walk the filtered
    items instead of the whole benchmark."""
    require_benchmark(request, name)
    store = store_of(request)
    found = find_item(store, name, item_id)
    if found is None:
        raise HTTPException(404, f"no item {item_id!r} in benchmark {name!r}")
    answers = [(r, outcome(found, r)) for r in item_responses(store, item_id)]
    within = filtered_ids(store, name, wanted) if wanted.is_set() else None
    names = _names(request, store, name)
    shown = dict.fromkeys(r.model for r, _ in answers)
    return render(
        request,
        "item.html",
        name=name,
        item=found,
        names=names,
        legend={m: names[m] for m in shown if names.get(m, m) != m},
        transcripts=transcripts(store, found, answers),
        neighbours=item_neighbours(store, name, item_id, within),
        query=browser_query(wanted),
        judgments=item_judgments(store, item_id),
    )


def _names(request: Request, store: Store, name: str) -> dict[str, str]:
    """The benchmark's display names, as its leaderboard shows them (the summary is the one
    the JSON leaderboard caches, so an unchanged store computes it once)."""
    summary = figures_of(request).get(("summary", name), lambda: benchmark_summary(store, name))
    return board_names(summary)


@router.get("/images/{digest}")
def image(request: Request, digest: str) -> Response:
    """An image by its sha256, and nothing else: the name must be 64 hex digits, so no path
    (``..``, ``/``, a drive) can ever reach the file system."""
    if not _DIGEST.match(digest):
        raise HTTPException(404, "no such image")
    path = store_of(request).image_path(digest)
    if not path.is_file():
        raise HTTPException(404, "no such image")
    media = "image/jpeg" if path.suffix == ".jpg" else "image/png"
    return FileResponse(
        path, media_type=media, headers={"Cache-Control": "public, max-age=31536000"}
    )


@router.get("/static/report.css")
def report_stylesheet() -> Response:
    """The report's own style sheet, so leaderboard pages look like the HTML report."""
    return Response(report_css(), media_type="text/css")


@router.get("/static/app.css")
def app_css() -> Response:
    css = resources.files("lvlmbench.web").joinpath("static/app.css").read_text(encoding="utf-8")
    return Response(css, media_type="text/css")


@router.get("/healthz")
def health() -> dict[str, bool]:
    return {"ok": True}
