"""Write pages for people: blind pairwise votes, alignment checks, and the token sign-in."""

from __future__ import annotations

import hmac
import random
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lvlmbench.judging.human_checks import CHECK_ANSWERS, CHECKS
from lvlmbench.web._render import ANNOTATOR_COOKIE, render, require_benchmark, store_of
from lvlmbench.web.human import (
    BallotBox,
    check_candidates,
    new_ballot,
    pick_check_item,
    record_checks,
    record_vote,
    valid_annotator,
)
from lvlmbench.web.queries import find_item
from lvlmbench.web.security import TOKEN_COOKIE, check_origin, check_write

__all__ = ["router"]

router = APIRouter()
_rng = random.SystemRandom()
_Text = Annotated[str, Form(max_length=100)]


def _annotator(request: Request, given: str | None = None) -> str:
    name = given or request.cookies.get(ANNOTATOR_COOKIE) or "anonymous"
    try:
        return valid_annotator(name.strip())
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None


def _remember(response: Response, annotator: str) -> Response:
    response.set_cookie(ANNOTATOR_COOKIE, annotator, samesite="strict", max_age=365 * 86400)
    return response


def _box(request: Request) -> BallotBox:
    box: BallotBox = request.app.state.ballots
    return box


@router.get("/b/{name}/vote", response_class=HTMLResponse)
def vote_page(request: Request, name: str) -> Response:
    require_benchmark(request, name)
    annotator = _annotator(request)
    ballot = new_ballot(store_of(request), name, annotator, _rng)
    if ballot is not None:
        _box(request).add(ballot)
    return render(request, "vote.html", name=name, ballot=ballot)


@router.post("/b/{name}/vote", response_class=HTMLResponse)
def cast_vote(
    request: Request,
    name: str,
    ballot: _Text,
    choice: _Text,
    annotator: _Text = "",
    csrf: _Text = "",
) -> Response:
    check_write(request, csrf)
    require_benchmark(request, name)
    voter = _annotator(request, annotator)
    taken = _box(request).take(ballot)
    if taken is None or taken.benchmark != name:
        raise HTTPException(409, "this ballot was already used or has expired: take a new one")
    try:
        stored = record_vote(store_of(request), taken, choice, voter)
    except ValueError as exc:
        _box(request).add(taken)  # a bad form value should not burn the ballot
        raise HTTPException(422, str(exc)) from None
    page = render(request, "voted.html", name=name, ballot=taken, choice=choice, vote=stored)
    return _remember(page, voter)


@router.get("/b/{name}/check", response_class=HTMLResponse)
def check_page(request: Request, name: str) -> Response:
    require_benchmark(request, name)
    item = pick_check_item(store_of(request), name, _annotator(request), _rng)
    checks = check_candidates(item) if item is not None else []
    return render(
        request,
        "check.html",
        name=name,
        item=item,
        checks=[(c, CHECKS[c]) for c in checks],
        answers=CHECK_ANSWERS,
    )


@router.post("/b/{name}/check", response_class=HTMLResponse)
async def record_check(request: Request, name: str) -> Response:
    form = await request.form(max_files=0, max_fields=10)
    check_write(request, str(form.get("csrf", "")))
    require_benchmark(request, name)
    voter = _annotator(request, str(form.get("annotator", "")))
    item_id = str(form.get("item", ""))
    item = find_item(store_of(request), name, item_id)
    if item is None:
        raise HTTPException(404, f"no item {item_id!r} in benchmark {name!r}")
    answers = {c: str(form[c]) for c in CHECKS if form.get(c)}
    try:
        record_checks(store_of(request), item, voter, answers)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    redirect = RedirectResponse(f"/b/{name}/check", status_code=303)
    return _remember(redirect, voter)


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> Response:
    return render(request, "login.html", failed=False)


@router.post("/login", response_class=HTMLResponse)
def login(request: Request, token: Annotated[str, Form(max_length=200)]) -> Response:
    """Exchange the token for an HttpOnly cookie (the token itself is never echoed back)."""
    check_origin(request)
    expected: str | None = request.app.state.settings.token
    if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
        return render(request, "login.html", status_code=403, failed=expected is not None)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
    return response
