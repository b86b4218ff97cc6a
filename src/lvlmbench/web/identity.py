"""Who is voting: identities the server issues, never a name a form field claims.

* **Local mode** (no write token, so a loopback bind): one trusted person at the keyboard, the
  owner, under the name ``serve --annotator`` gives (``owner`` by default). No sign-in.
* **Token mode** (a write token): nobody is anyone until they sign in at ``/login`` with the
  owner's write token (the owner) or with their own invite token (``lvlmbench annotators invite
  NAME``: that annotator). Signing in sets an HttpOnly cookie holding the name, the role and a
  tag of the token used, signed with HMAC-SHA256 under the store's web secret (made once, kept
  in the store, never printed). The tag binds the cookie to that token: re-inviting or revoking
  an annotator, or changing the write token, ends every cookie issued for the old one. Scripts
  send the token as ``Authorization: Bearer`` instead.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Literal

from fastapi import HTTPException, Request, Response

from lvlmbench.store import Store, get_annotator, invited_annotator, token_digest
from lvlmbench.web.limits import LoginGuard, client_key, too_many

__all__ = [
    "COOKIE_DAYS",
    "IDENTITY_COOKIE",
    "Identity",
    "authenticate",
    "client_tag",
    "identify",
    "sign_in",
    "sign_out",
    "token_identity",
]

IDENTITY_COOKIE = "lvlmbench_id"
COOKIE_DAYS = 30
_TAG = 16  # hex digits of a token's sha256 a cookie is bound to
Role = Literal["owner", "annotator"]


@dataclass(frozen=True)
class Identity:
    """A person the server knows: the owner or an invited annotator."""

    annotator: str
    role: Role
    binding: str = ""
    """Tag of the token this identity signed in with ("" in local mode)."""

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: bytes, payload: str) -> str:
    return _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())


def cookie_value(secret: bytes, identity: Identity, issued: float) -> str:
    """``payload.signature``: the payload is base64 JSON (name, role, token tag, time)."""
    body = {"n": identity.annotator, "r": identity.role, "b": identity.binding, "t": int(issued)}
    payload = _b64(json.dumps(body, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{_signature(secret, payload)}"


def read_cookie(secret: bytes, value: str, now: float) -> Identity | None:
    """The identity a cookie names, if its signature is ours and it has not expired."""
    payload, _, signature = value.partition(".")
    if not payload or not hmac.compare_digest(signature, _signature(secret, payload)):
        return None
    try:
        body = json.loads(_unb64(payload))
        name, role, binding, issued = body["n"], body["r"], body["b"], float(body["t"])
    except (ValueError, KeyError, TypeError):
        return None
    if role not in ("owner", "annotator") or not isinstance(name, str) or not binding:
        return None
    if not 0 <= now - issued <= COOKIE_DAYS * 86400:
        return None
    return Identity(name, role, str(binding))


def _owner_tag(token: str) -> str:
    return token_digest(token)[:_TAG]


def _still_valid(store: Store, identity: Identity, write_token: str) -> bool:
    """Whether the token the cookie was issued for is still the one in force."""
    if identity.is_owner:
        return hmac.compare_digest(identity.binding, _owner_tag(write_token))
    invited = get_annotator(store, identity.annotator)
    return (
        invited is not None
        and invited.active
        and hmac.compare_digest(identity.binding, invited.token_hash[:_TAG])
    )


def identify(request: Request) -> Identity | None:
    """Who sent ``request``: the owner in local mode, else whoever its signed cookie names
    (None when it has none, or a forged, expired or revoked one)."""
    if hasattr(request.state, "identity"):
        cached: Identity | None = request.state.identity
        return cached
    settings = request.app.state.settings
    found: Identity | None = None
    if settings.token is None:
        found = Identity(settings.owner, "owner")
    else:
        value = request.cookies.get(IDENTITY_COOKIE, "")
        claimed = read_cookie(request.app.state.secret, value, time.time()) if value else None
        store: Store = request.app.state.store
        if claimed is not None and _still_valid(store, claimed, settings.token):
            found = claimed
    request.state.identity = found  # None is cached too: a page asks several times
    return found


def token_identity(request: Request, token: str) -> Identity | None:
    """The identity a token signs in as: the owner's write token or an active invite."""
    write_token: str | None = request.app.state.settings.token
    if write_token is None or not token:
        return None
    if hmac.compare_digest(token.encode(), write_token.encode()):
        return Identity(request.app.state.settings.owner, "owner", _owner_tag(write_token))
    invited = invited_annotator(request.app.state.store, token)
    if invited is None:
        return None
    return Identity(invited.name, "annotator", invited.token_hash[:_TAG])


def authenticate(request: Request, token: str, *, form: bool) -> Identity:
    """The identity ``token`` signs in as, through the sign-in guard: 429 while this client
    backs off after failures (and, for the ``/login`` ``form``, past its attempts per minute),
    403 for a wrong token (one more failure). A script's ``Authorization: Bearer`` is not
    counted per minute: only its failures are."""
    guard: LoginGuard = request.app.state.logins
    client = client_key(request)
    wait = guard.wait(client, count=form)
    if wait > 0:
        raise too_many("too many sign-in attempts from this address", wait)
    identity = token_identity(request, token)
    if identity is None:
        guard.failed(client)
        raise HTTPException(403, "that is not this server's write token nor an invite token")
    guard.succeeded(client)
    return identity


def client_tag(request: Request) -> str:
    """A keyed hash of the client's address (as limits key it): equal for one client, and not
    the address, which the store never keeps."""
    key = client_key(request).encode()
    return hmac.new(request.app.state.secret, key, hashlib.sha256).hexdigest()[:16]


def sign_in(response: Response, request: Request, identity: Identity) -> Response:
    """Set the signed identity cookie (HttpOnly, SameSite=Strict, Secure over HTTPS)."""
    value = cookie_value(request.app.state.secret, identity, time.time())
    response.set_cookie(
        IDENTITY_COOKIE,
        value,
        max_age=COOKIE_DAYS * 86400,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def sign_out(response: Response) -> Response:
    response.delete_cookie(IDENTITY_COOKIE, httponly=True, samesite="strict")
    return response
