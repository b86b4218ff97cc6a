"""Stuffing attempts against a real uvicorn server, by a client that speaks plain HTTP: votes
under 100 made-up names, and 200 wrong tokens. Measured before the fix: 100 votes under 100
names in 1.2 s, 661 votes in 10 s under one name, 200 wrong tokens all checked in 0.4 s."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import httpx
from web.conftest import OPEN, build_store
from web_server import running

from lvlmbench.store import iter_judgments
from lvlmbench.web import WebSettings, create_app

TOKEN = "the-owners-write-token"
_FIELDS = re.compile(r'name="(ballot|csrf)" value="([^"]+)"')


def _stuff(client: httpx.Client, name: str) -> int:
    """Take a ballot and vote on it claiming to be ``name``: the reply's status."""
    fields = dict(_FIELDS.findall(client.get(f"/b/{OPEN}/vote").text))
    form = {**fields, "choice": "left", "annotator": name}
    return client.post(f"/b/{OPEN}/vote", data=form).status_code


def test_a_hundred_names_from_one_client(tmp_path: Path) -> None:
    """Every vote accepted is the server's one identity for this client, and no more are
    accepted than the limit allows (a burst of 10, then 20 a minute)."""
    built = build_store(tmp_path)
    with running(create_app(built.store)) as base, httpx.Client(base_url=base) as client:
        started = time.monotonic()
        replies = [_stuff(client, f"sock{i}") for i in range(100)]
        elapsed = time.monotonic() - started
        refused = client.post(f"/b/{OPEN}/vote", data={"ballot": "x", "choice": "left"})
    judges = {j.judge for j in iter_judgments(built.store, protocol="human")}
    assert judges == {"human:owner"}
    accepted = replies.count(200)
    assert 1 <= accepted <= 10 + math.ceil(elapsed * 20 / 60)
    assert replies.count(429) == 100 - accepted
    assert refused.status_code == 403  # no CSRF value: refused before any limit is spent


def test_two_hundred_wrong_tokens(tmp_path: Path) -> None:
    """Each failure doubles the wait before the next check (1, 2, 4 ... s), so in ``elapsed``
    seconds at most 1 + log2(elapsed + 1) tokens are checked; the rest get 429 with
    Retry-After."""
    built = build_store(tmp_path)
    app = create_app(built.store, WebSettings(host="0.0.0.0", token=TOKEN))
    with running(app) as base, httpx.Client(base_url=base) as client:
        client.get("/login")
        csrf = client.cookies["lvlmbench_csrf"]
        started = time.monotonic()
        replies = [
            client.post("/login", data={"token": f"guess-{i}", "csrf": csrf}) for i in range(200)
        ]
        elapsed = time.monotonic() - started
    checked = [r for r in replies if r.status_code == 403]
    throttled = [r for r in replies if r.status_code == 429]
    assert 1 <= len(checked) <= 1 + math.log2(elapsed + 1)
    assert len(checked) + len(throttled) == 200
    assert all(int(r.headers["retry-after"]) >= 1 for r in throttled)
    assert all(TOKEN not in r.text for r in replies)
