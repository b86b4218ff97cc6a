"""Shared pieces of the route modules: templates, the store, form-field helpers."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from lvlmbench.store import Store, StoredBenchmark, get_benchmark
from lvlmbench.web.human import votable
from lvlmbench.web.identity import identify
from lvlmbench.web.limits import Rate
from lvlmbench.web.revision_cache import RevisionCache
from lvlmbench.web.security import csrf_value

__all__ = [
    "IP_VOTE_LIMIT",
    "LOGIN_LIMIT",
    "VOTE_LIMIT",
    "WebSettings",
    "figures_of",
    "render",
    "require_benchmark",
    "store_of",
    "templates",
    "votable_here",
]


VOTE_LIMIT = Rate(per_minute=20, burst=10)
IP_VOTE_LIMIT = Rate(per_minute=120, burst=60)
LOGIN_LIMIT = Rate(per_minute=10, burst=5)


@dataclass(frozen=True)
class WebSettings:
    """How the app was started."""

    host: str = "127.0.0.1"
    token: str | None = None
    """Write token; required (not None) whenever ``host`` is not a loopback address."""
    max_upload_bytes: int = 20 * 1024 * 1024
    """Largest request body accepted (submissions are the big ones)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names answered besides the bound address's own (``*``: any); see
    :func:`lvlmbench.web.security.allowed_host_names`."""
    owner: str = "owner"
    """Annotator name of the owner: the local user without a token, or whoever signs in with
    the write token (see :mod:`lvlmbench.web.identity`)."""
    vote_limit: Rate = VOTE_LIMIT
    """Votes and check forms per annotator."""
    ip_vote_limit: Rate = IP_VOTE_LIMIT
    """Votes and check forms per client address, whoever is signed in."""
    login_limit: Rate = LOGIN_LIMIT
    """Sign-in attempts per client address (failures also back off, doubling)."""


# Autoescape is on for every .html template (Jinja2Templates' default): model and dataset text
# is never marked safe; only the report's own charts, built with escaping, are.
templates = Jinja2Templates(directory=str(resources.files("lvlmbench.web") / "templates"))


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def figures_of(request: Request) -> RevisionCache:
    """The app's figures cached per store revision."""
    figures: RevisionCache = request.app.state.figures
    return figures


def require_benchmark(request: Request, name: str) -> StoredBenchmark:
    """The benchmark's record, or 404 naming it."""
    bench = get_benchmark(store_of(request), name)
    if bench is None:
        raise HTTPException(404, f"no benchmark {name!r} in this store")
    return bench


def votable_here(request: Request, name: str) -> bool:
    """Whether benchmark ``name`` has a pair to vote on, worked out once per store revision."""
    return figures_of(request).get(("votable", name), lambda: votable(store_of(request), name))


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A page with what every template needs: the CSRF value, who is signed in, the mode."""
    name = context.get("name")
    if isinstance(name, str) and "votable" not in context:
        # The nav offers a vote only where there is something to vote on.
        context["votable"] = votable_here(request, name)
    context.update(
        csrf=csrf_value(request),
        identity=identify(request),
        needs_token=request.app.state.settings.token is not None,
    )
    return templates.TemplateResponse(request, template, context, status_code=status_code)
