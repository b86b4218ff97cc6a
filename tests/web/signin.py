"""A shared (token-mode) web app in tests: the owner's token, a clock the tests move, and the
forms a browser sends to sign in and to vote."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response

from lvlmbench.store import Store
from lvlmbench.web import WebSettings, create_app

OWNER_TOKEN = "s3cret-token-for-tests"
PUBLIC = "http://bench.example"
"""Where test clients of the shared app send their requests (a name it is told to answer)."""
_FIELDS = re.compile(r'name="(ballot|csrf|item)" value="([^"]+)"')


class ManualClock:
    """Seconds that pass only when a test says so: limits are tested without sleeping."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def shared_app(store: Store, clock: ManualClock | None = None, **settings: Any) -> FastAPI:
    """The app as `serve --host 0.0.0.0 --token-file ...` builds it (extra ``settings``)."""
    chosen = WebSettings(
        host="0.0.0.0", token=OWNER_TOKEN, allowed_hosts=("bench.example",), **settings
    )
    return create_app(store, chosen, clock=clock or ManualClock())


def form_fields(client: TestClient, path: str) -> dict[str, str]:
    """The hidden fields (csrf, ballot, item) of the page at ``path``."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    return dict(_FIELDS.findall(page.text))


def sign_in(client: TestClient, token: str) -> Response:
    """Post the sign-in form as a browser would (its CSRF value from the page)."""
    csrf = form_fields(client, "/login")["csrf"]
    return client.post("/login", data={"token": token, "csrf": csrf}, follow_redirects=False)


def cast_vote(client: TestClient, benchmark: str, choice: str = "left", **extra: str) -> Response:
    """Take a ballot and vote on it; ``extra`` form fields are sent too (a claimed name...)."""
    fields = form_fields(client, f"/b/{benchmark}/vote")
    assert "ballot" in fields, "no ballot on the vote page"
    return client.post(f"/b/{benchmark}/vote", data={**fields, "choice": choice, **extra})
