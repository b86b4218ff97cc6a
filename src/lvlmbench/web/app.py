"""The FastAPI application: routes, security middleware and the error pages."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from lvlmbench import __version__
from lvlmbench.models import ChatModel
from lvlmbench.store import Store, StoreError, get_annotator, valid_annotator, web_secret
from lvlmbench.web import routes_api, routes_browse, routes_human, routes_owner, routes_submit
from lvlmbench.web._head import HeadAsGet
from lvlmbench.web._render import WebSettings, render
from lvlmbench.web.human import BallotBox
from lvlmbench.web.limits import LoginGuard, TokenBuckets
from lvlmbench.web.revision_cache import RevisionCache
from lvlmbench.web.security import (
    BodyLimit,
    HostAllowList,
    allowed_host_names,
    is_loopback,
    security_headers,
)

__all__ = ["create_app"]


def create_app(
    store: Store,
    settings: WebSettings | None = None,
    judge: Callable[[], ChatModel] | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The web app over ``store``; ``judge`` builds the pairwise judge model for submissions
    (None: submissions get the benchmark's metrics only); ``clock`` (seconds) runs the vote and
    sign-in limits. ValueError when ``settings`` bind a
    non-loopback address without a write token (anyone could otherwise vote and submit), or
    name an owner that is not a valid annotator name or is an invited annotator's."""
    settings = settings or WebSettings()
    if not is_loopback(settings.host) and not settings.token:
        raise ValueError(
            f"serving on {settings.host} makes the app reachable from other machines: "
            "set a write token (--token-file or LVLMBENCH_WEB_TOKEN)"
        )
    valid_annotator(settings.owner)
    if get_annotator(store, settings.owner) is not None:
        raise ValueError(
            f"the owner's name {settings.owner!r} is an invited annotator's: their votes and "
            "yours would mix; give the owner another name (--annotator)"
        )
    app = FastAPI(title="lvlmbench", version=__version__, docs_url=None, redoc_url=None)
    app.state.store = store
    app.state.settings = settings
    app.state.ballots = BallotBox()
    app.state.secret = _secret(store)
    app.state.vote_buckets = TokenBuckets(clock)
    app.state.logins = LoginGuard(settings.login_limit, clock=clock)
    app.state.judge = judge
    # Leaderboards computed once per store revision (see revision_cache): a page view of an
    # unchanged store costs one query, a write by any process makes the next view recompute.
    app.state.figures = RevisionCache(store)
    app.middleware("http")(security_headers)
    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes)
    # The last added runs first: HEAD becomes GET (so every layer below answers it), then a
    # foreign Host is refused before anything else reads the request.
    hosts = allowed_host_names(settings.host, settings.allowed_hosts)
    app.add_middleware(HostAllowList, allowed=hosts)
    app.add_middleware(HeadAsGet)
    for module in (routes_browse, routes_api, routes_human, routes_owner, routes_submit):
        app.include_router(module.router)
    app.add_exception_handler(StarletteHTTPException, _error_page)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    return app


def _secret(store: Store) -> bytes:
    """The store's cookie-signing secret; a read-only store without one (it takes no votes
    anyway) gets one for this process only."""
    try:
        return web_secret(store)
    except StoreError:
        return secrets.token_bytes(32)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def _error_page(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if _wants_json(request):
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )
    page = render(
        request,
        "error.html",
        status_code=exc.status_code,
        status=exc.status_code,
        detail=exc.detail,
    )
    page.headers.update(exc.headers or {})  # Retry-After of a 429
    return page


async def _invalid_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10]]
    if _wants_json(request):
        return JSONResponse({"detail": "; ".join(problems)}, status_code=422)
    return render(request, "error.html", status_code=422, status=422, detail="; ".join(problems))
