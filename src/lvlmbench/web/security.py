"""What keeps the web app safe to run: the write token, cross-site form protection, upload
limits and response headers.

* Bound to loopback without a token (the default) anyone who can reach the port is on this
  machine: one trusted user, the owner, and writes need no sign-in. With a write token (always
  when bound to any other address) every write needs an identity: a signed cookie from
  ``/login`` (the write token signs in the owner, an invite token its annotator; see
  :mod:`lvlmbench.web.identity`) or the token as ``Authorization: Bearer``. Failed sign-ins
  back off per client (:mod:`lvlmbench.web.limits`).
* Form posts carry a per-browser random value that must equal the ``lvlmbench_csrf`` cookie
  (double submit): another site can make a browser post a form here but cannot read the
  cookie, so it cannot fill the field. A request whose ``Origin`` is another host is refused
  outright.
* Only requests whose ``Host`` names this server are answered (400 otherwise, on every route):
  a DNS-rebinding page resolves its own name to 127.0.0.1 and would otherwise read pages and
  post votes as a same-origin page. The bound address's names (loopback: ``127.0.0.1``,
  ``localhost``, ``[::1]``) are allowed, any port, plus the names given with ``--allow-host``.
* Request bodies over the limit are cut off with 413 while they stream in, so a huge upload
  never reaches memory or disk.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from lvlmbench.web.identity import Identity, authenticate, identify

__all__ = [
    "CSRF_COOKIE",
    "BodyLimit",
    "HostAllowList",
    "allowed_host_names",
    "check_csrf",
    "check_origin",
    "check_write",
    "csrf_value",
    "is_loopback",
    "require_owner",
    "security_headers",
]

CSRF_COOKIE = "lvlmbench_csrf"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``: addresses only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
_WILDCARD_BINDS = frozenset({"0.0.0.0", "::", "[::]", ""})


def _normal_host(host: str) -> str:
    """``host`` as it appears in a Host header, without port: lower case, IPv6 in brackets,
    no trailing dot."""
    host = host.strip().lower().rstrip(".")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return host


def allowed_host_names(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host names (no port) this server answers: the bound address (every loopback name
    for a loopback address; for 0.0.0.0 or ::, the loopback names only, since the names others
    reach it by are the operator's to give) plus ``extra``. ``*`` in ``extra`` turns the check
    off."""
    names = {_normal_host(name) for name in extra}
    if is_loopback(bound) or bound.strip() in _WILDCARD_BINDS:
        names |= _LOOPBACK_NAMES
    else:
        names.add(_normal_host(bound))
    return frozenset(names)


def _host_of(header: str) -> str:
    """The name part of a Host header (``[::1]:8000`` → ``[::1]``, ``a.test:80`` → ``a.test``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header.partition("]")[0] + "]"
    return header.partition(":")[0].rstrip(".")


class HostAllowList:
    """ASGI middleware: 400 for any request whose Host header is missing or not allowed."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "*" in self.allowed:
            await self.app(scope, receive, send)
            return
        raw = dict(scope.get("headers") or []).get(b"host", b"")
        host = _host_of(raw.decode("latin-1"))
        if host in self.allowed:
            await self.app(scope, receive, send)
            return
        shown = ", ".join(sorted(self.allowed)) or "none"
        body = (
            f"Host {host or '(none)'!r} is not served here (allowed: {shown}); "
            "start the server with --allow-host NAME to add one"
        )
        await _plain(send, 400, body)


def csrf_value(request: Request) -> str:
    """The browser's CSRF value (from its cookie), or a fresh one the page will set."""
    existing = request.cookies.get(CSRF_COOKIE, "")
    if len(existing) == 43 and existing.replace("-", "").replace("_", "").isalnum():
        return existing
    value: str = getattr(request.state, "new_csrf", "") or secrets.token_urlsafe(32)
    request.state.new_csrf = value
    return value


def check_origin(request: Request) -> None:
    """403 when the browser says the request comes from another site."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    host = request.headers.get("host", "")
    if origin == "null" or urlsplit(origin).netloc != host:
        raise HTTPException(403, "cross-site request refused (Origin does not match Host)")


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def check_write(request: Request, form_csrf: str | None) -> Identity:
    """Every write endpoint calls this first: origin, identity, then CSRF; returns who writes.

    A request with ``Authorization: Bearer`` (token mode) is an API client, not a browser
    form, so it needs no CSRF value (browsers never attach that header on their own).
    """
    check_origin(request)
    bearer = _bearer(request)
    if request.app.state.settings.token is not None and bearer is not None:
        return authenticate(request, bearer, form=False)
    identity = identify(request)
    if identity is None:
        raise HTTPException(
            403, "this server needs you signed in: sign in at /login with your invite token"
        )
    check_csrf(request, form_csrf)
    return identity


def check_csrf(request: Request, form_csrf: str | None) -> None:
    """403 unless the form's CSRF value equals the browser's CSRF cookie."""
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not form_csrf or not hmac.compare_digest(cookie, form_csrf):
        raise HTTPException(403, "form expired or sent from another site: reload the page")


def require_owner(identity: Identity, what: str) -> None:
    """403 unless ``identity`` is the owner (``what``: the thing only the owner may do)."""
    if not identity.is_owner:
        raise HTTPException(403, f"{what} is for the server's owner: sign in with the write token")


async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
    """No inline or third-party scripts, no framing, no MIME sniffing, and the CSRF cookie."""
    response = await call_next(request)
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'self'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    new_csrf = getattr(request.state, "new_csrf", None)
    if new_csrf and CSRF_COOKIE not in request.cookies:
        response.set_cookie(CSRF_COOKIE, new_csrf, httponly=True, samesite="strict")
    return response


class BodyLimit:
    """ASGI middleware: 413 for a body over ``limit`` bytes, checked on the declared length and
    again on the bytes actually received (a chunked upload declares none)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(send, self.limit)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except* _BodyTooLarge:  # raised in an inner task group, so it may arrive grouped
            if not started:
                await _too_large(send, self.limit)


class _BodyTooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    await _plain(send, 413, f"request body over the limit of {limit:,} bytes")


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"x-content-type-options", b"nosniff"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
