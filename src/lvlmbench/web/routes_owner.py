"""The owner's page of annotators: votes per annotator with the flags that point at stuffing
(:func:`lvlmbench.judging.annotator_report`), and buttons that exclude an annotator's votes from
every human figure or count them again. Only the owner sees it (403 for anyone else)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lvlmbench.judging import ALL_TIES, DISAGREE_GAP, FAST_S, MIN_VOTES, ONE_SIDE, annotator_report
from lvlmbench.store import list_benchmarks, set_excluded
from lvlmbench.web._render import render, require_benchmark, store_of
from lvlmbench.web.identity import identify
from lvlmbench.web.security import check_write, require_owner

__all__ = ["router"]

router = APIRouter()
_PAGE = "the annotators page"


@router.get("/annotators", response_class=HTMLResponse)
def annotators_page(request: Request, benchmark: str = "") -> Response:
    identity = identify(request)
    if identity is None:
        raise HTTPException(403, f"{_PAGE} is for the server's owner: sign in at /login")
    require_owner(identity, _PAGE)
    if benchmark:
        require_benchmark(request, benchmark)
    store = store_of(request)
    report = annotator_report(store, benchmark or None)
    return render(
        request,
        "annotators.html",
        rows=report.rows,
        benchmark=benchmark,
        benchmarks=[b.name for b in list_benchmarks(store)],
        thresholds={
            "min_votes": MIN_VOTES,
            "one_side": ONE_SIDE,
            "all_ties": ALL_TIES,
            "gap": DISAGREE_GAP,
            "fast_s": FAST_S,
        },
    )


@router.post("/annotators/exclusions", response_class=HTMLResponse)
def set_exclusion(
    request: Request,
    annotator: Annotated[str, Form(max_length=512)],
    action: Annotated[str, Form(max_length=16)],
    reason: Annotated[str, Form(max_length=300)] = "",
    benchmark: Annotated[str, Form(max_length=256)] = "",
    csrf: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """``action`` exclude or include ``annotator``'s votes (the owner only)."""
    identity = check_write(request, csrf)
    require_owner(identity, "excluding votes")
    if action not in ("exclude", "include"):
        raise HTTPException(422, "action must be exclude or include")
    known = {row.annotator for row in annotator_report(store_of(request)).rows}
    if annotator not in known:
        raise HTTPException(404, f"no annotator {annotator!r} has votes or an invite here")
    set_excluded(store_of(request), annotator, action == "exclude", reason.strip())
    target = f"/annotators?benchmark={quote(benchmark)}" if benchmark else "/annotators"
    return RedirectResponse(target, status_code=303)
