"""Write pages for people: blind pairwise votes, alignment checks, and signing in and out.

Every write knows its annotator from the server-issued identity (:mod:`lvlmbench.web.identity`),
never from a form field, and takes a token from the annotator's and the client address's vote
buckets first (:mod:`lvlmbench.web.limits`): past them it gets 429 with ``Retry-After``.
"""

from __future__ import annotations

import random
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lvlmbench.judging.human_checks import CHECK_ANSWERS, CHECKS
from lvlmbench.web._render import WebSettings, render, require_benchmark, store_of
from lvlmbench.web.human import (
    BallotBox,
    check_candidates,
    new_ballot,
    pick_check_item,
    record_checks,
    record_vote,
)
from lvlmbench.web.identity import (
    Identity,
    authenticate,
    client_tag,
    identify,
    sign_in,
    sign_out,
)
from lvlmbench.web.limits import TokenBuckets, client_key, too_many
from lvlmbench.web.queries import find_item
from lvlmbench.web.security import check_csrf, check_origin, check_write

__all__ = ["router"]

router = APIRouter()
_rng = random.SystemRandom()
_Text = Annotated[str, Form(max_length=100)]


def _box(request: Request) -> BallotBox:
    box: BallotBox = request.app.state.ballots
    return box


def _take_vote(request: Request, identity: Identity) -> None:
    """One token from the annotator's bucket and the client's, or 429."""
    settings: WebSettings = request.app.state.settings
    buckets: TokenBuckets = request.app.state.vote_buckets
    wait = buckets.take(
        [
            (settings.vote_limit, f"annotator:{identity.annotator}"),
            (settings.ip_vote_limit, f"client:{client_key(request)}"),
        ]
    )
    if wait > 0:
        raise too_many("too many votes in a short time", wait)


@router.get("/b/{name}/vote", response_class=HTMLResponse)
def vote_page(request: Request, name: str) -> Response:
    require_benchmark(request, name)
    identity = identify(request)
    ballot = None
    if identity is not None:
        ballot = new_ballot(store_of(request), name, identity.annotator, _rng)
        if ballot is not None:
            _box(request).add(ballot)
    return render(request, "vote.html", name=name, ballot=ballot)


@router.post("/b/{name}/vote", response_class=HTMLResponse)
def cast_vote(
    request: Request, name: str, ballot: _Text, choice: _Text, csrf: _Text = ""
) -> Response:
    identity = check_write(request, csrf)
    require_benchmark(request, name)
    if choice not in ("left", "right", "tie"):
        raise HTTPException(422, "choice must be left, right or tie")
    _take_vote(request, identity)
    taken = _box(request).take(ballot, identity.annotator)
    if taken is None or taken.benchmark != name:
        raise HTTPException(
            409, "this ballot was already used, has expired or is someone else's: take a new one"
        )
    stored = record_vote(store_of(request), taken, choice, client_tag(request))
    return render(request, "voted.html", name=name, ballot=taken, choice=choice, vote=stored)


@router.get("/b/{name}/check", response_class=HTMLResponse)
def check_page(request: Request, name: str) -> Response:
    require_benchmark(request, name)
    identity = identify(request)
    item = None
    if identity is not None:
        item = pick_check_item(store_of(request), name, identity.annotator, _rng)
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
    identity = check_write(request, str(form.get("csrf", "")))
    require_benchmark(request, name)
    item_id = str(form.get("item", ""))
    item = find_item(store_of(request), name, item_id)
    if item is None:
        raise HTTPException(404, f"no item {item_id!r} in benchmark {name!r}")
    answers = {c: str(form[c]) for c in CHECKS if form.get(c)}
    _take_vote(request, identity)
    try:
        record_checks(store_of(request), item, identity.annotator, answers)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return RedirectResponse(f"/b/{name}/check", status_code=303)


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> Response:
    return render(request, "login.html", failed=False)


@router.post("/login", response_class=HTMLResponse)
def login(
    request: Request,
    token: Annotated[str, Form(max_length=200)],
    csrf: _Text = "",
) -> Response:
    """Exchange the write token or an invite token for a signed identity cookie (the token
    itself is never echoed back nor kept in the cookie)."""
    check_origin(request)
    check_csrf(request, csrf)
    if request.app.state.settings.token is None:
        return render(request, "login.html", status_code=403, failed=False)
    try:
        identity = authenticate(request, token, form=True)
    except HTTPException as exc:
        if exc.status_code != 403:
            raise
        return render(request, "login.html", status_code=403, failed=True)
    return sign_in(RedirectResponse("/", status_code=303), request, identity)


@router.post("/logout")
def logout(request: Request, csrf: _Text = "") -> Response:
    check_origin(request)
    check_csrf(request, csrf)
    return sign_out(RedirectResponse("/", status_code=303))
