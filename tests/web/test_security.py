"""The write token for non-loopback servers, the upload limit and the serve command's refusal
to expose an unprotected server. (Invites, identities and limits: test_votes_identity.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from web.conftest import CHOICE, LOCAL, OPEN, Fixture
from web.signin import OWNER_TOKEN as TOKEN
from web.signin import PUBLIC, ManualClock, cast_vote, shared_app, sign_in

from lvlmbench.cli import app
from lvlmbench.store import iter_judgments, iter_responses
from lvlmbench.web import WebSettings, create_app, is_loopback


@pytest.fixture()
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture()
def public(web_store: Fixture, clock: ManualClock) -> Iterator[TestClient]:
    with TestClient(shared_app(web_store.store, clock), base_url=PUBLIC) as test_client:
        yield test_client


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def test_non_loopback_without_token_is_refused(web_store: Fixture) -> None:
    with pytest.raises(ValueError, match="write token"):
        create_app(web_store.store, WebSettings(host="0.0.0.0"))
    result = CliRunner().invoke(
        app, ["serve", "--host", "0.0.0.0", "--store", web_store.store.url], env={}
    )
    assert result.exit_code == 2
    assert "write token" in result.output


def test_public_server_reads_freely_but_writes_need_the_token(
    public: TestClient, web_store: Fixture, clock: ManualClock
) -> None:
    assert public.get(f"/b/{CHOICE}").status_code == 200
    page = public.get(f"/b/{OPEN}/vote")
    assert 'id="sign-in-first"' in page.text and 'name="ballot"' not in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', public.get("/login").text)
    assert csrf is not None
    forged = {"ballot": "x" * 22, "choice": "left", "csrf": csrf.group(1)}
    assert public.post(f"/b/{OPEN}/vote", data=forged).status_code == 403
    assert list(iter_judgments(web_store.store, protocol="human")) == []
    wrong = sign_in(public, "guess")
    assert wrong.status_code == 403 and TOKEN not in wrong.text
    clock.advance(1)  # a failed sign-in makes the next one wait a second
    right = sign_in(public, TOKEN)
    assert right.status_code == 303
    assert "httponly" in right.headers["set-cookie"].lower()
    assert TOKEN not in right.headers["set-cookie"]  # the cookie names who, never the token
    assert cast_vote(public, OPEN).status_code == 200
    assert [j.judge for j in iter_judgments(web_store.store, protocol="human")] == ["human:owner"]


def test_public_api_needs_the_bearer_token(
    public: TestClient, web_store: Fixture, clock: ManualClock
) -> None:
    url = f"/api/b/{CHOICE}/submissions?model=api"
    body = b'{"item_id": "mc00", "text": "A"}'
    headers = {"Content-Type": "application/jsonl"}
    assert public.post(url, content=body, headers=headers).status_code == 403
    bad = {**headers, "Authorization": "Bearer nope"}
    assert public.post(url, content=body, headers=bad).status_code == 403
    clock.advance(1)  # a wrong bearer token backs off like a failed sign-in
    good = {**headers, "Authorization": f"Bearer {TOKEN}"}
    assert public.post(url, content=body, headers=good).status_code == 202
    assert len(list(iter_responses(web_store.store, model="submission/api"))) == 1


def test_uploads_over_the_limit_get_413_and_store_nothing(web_store: Fixture) -> None:
    settings = WebSettings(max_upload_bytes=2000)
    with TestClient(create_app(web_store.store, settings), base_url=LOCAL) as limited:
        page = limited.get(f"/b/{CHOICE}/submit")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf is not None
        big = b'{"item_id": "mc00", "text": "' + b"A" * 5000 + b'"}'
        reply = limited.post(
            f"/b/{CHOICE}/submit",
            data={"model": "huge", "csrf": csrf.group(1)},
            files={"answers": ("a.jsonl", big, "application/jsonl")},
        )
        assert reply.status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted while streaming
            for _ in range(10):
                yield b"x" * 500

        streamed = limited.post(
            f"/api/b/{CHOICE}/submissions?model=streamed",
            content=chunks(),
            headers={"Content-Type": "application/jsonl"},
        )
        assert streamed.status_code == 413
    assert list(iter_responses(web_store.store, model="submission/huge")) == []
    assert list(iter_responses(web_store.store, model="submission/streamed")) == []


def test_the_token_never_appears_in_pages(public: TestClient) -> None:
    assert sign_in(public, TOKEN).status_code == 303
    for url in ("/", f"/b/{CHOICE}", f"/b/{OPEN}/vote", f"/b/{CHOICE}/submit", "/login"):
        assert TOKEN not in public.get(url).text, url
