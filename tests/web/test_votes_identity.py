"""Votes cannot be stuffed through the app: annotators are who the server says (an invite
token's holder or the owner), never a name a form claims; votes and sign-ins are limited per
annotator and per client with 429 and Retry-After; the owner sees votes per annotator with their
flags and excludes or includes them. Time is a clock the tests move (no sleeping)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from web.conftest import CHOICE, LOCAL, OPEN, Fixture
from web.signin import (
    OWNER_TOKEN,
    PUBLIC,
    ManualClock,
    cast_vote,
    form_fields,
    shared_app,
    sign_in,
)

from lvlmbench.cli import app as cli
from lvlmbench.store import (
    Store,
    get_annotator,
    iter_judgments,
    iter_web_votes,
    put_judgments,
    web_secret,
)
from lvlmbench.types import Judgment
from lvlmbench.web import Rate, WebSettings, create_app
from lvlmbench.web.identity import IDENTITY_COOKIE, Identity, cookie_value

runner = CliRunner()
NO_LIMIT = Rate(0, 1)


def _invite(store: Store, name: str) -> str:
    result = runner.invoke(cli, ["annotators", "invite", name, "--store", store.url])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token), result.stdout
    return token


def _judges(store: Store) -> list[str]:
    return sorted(j.judge for j in iter_judgments(store, protocol="human"))


@pytest.fixture()
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture()
def shared(web_store: Fixture, clock: ManualClock) -> Iterator[TestClient]:
    with TestClient(shared_app(web_store.store, clock), base_url=PUBLIC) as client:
        yield client


def test_a_hundred_claimed_names_are_one_invited_annotator(
    shared: TestClient, web_store: Fixture
) -> None:
    """Before: 100 votes under 100 names in 1.4 s. Now every accepted vote is mallory's, the
    one identity her token gives, and past her burst of 10 the rest get 429."""
    token = _invite(web_store.store, "mallory")
    assert sign_in(shared, token).status_code == 303
    codes = [cast_vote(shared, OPEN, annotator=f"sock{i}").status_code for i in range(100)]
    assert codes.count(200) == 10 and codes.count(429) == 90
    assert _judges(web_store.store) == ["human:mallory"] * 10
    assert {v.annotator for v in iter_web_votes(web_store.store)} == {"mallory"}


def test_votes_past_the_limit_get_429_with_retry_after_and_refill(
    shared: TestClient, web_store: Fixture, clock: ManualClock
) -> None:
    """20 a minute in bursts of 10: the 11th vote waits 60/20 = 3 s, then one more fits."""
    assert sign_in(shared, _invite(web_store.store, "ann")).status_code == 303
    for _ in range(10):
        assert cast_vote(shared, OPEN).status_code == 200
    refused = cast_vote(shared, OPEN)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "3"
    assert "too many votes" in refused.text
    clock.advance(3)
    assert cast_vote(shared, OPEN).status_code == 200
    assert cast_vote(shared, OPEN).status_code == 429
    assert len(_judges(web_store.store)) == 11


def test_one_address_is_limited_whoever_signs_in(web_store: Fixture, clock: ManualClock) -> None:
    """Three invitees on one address share its bucket of 4 (their own buckets are off)."""
    app = shared_app(
        web_store.store, clock, vote_limit=NO_LIMIT, ip_vote_limit=Rate(per_minute=6, burst=4)
    )
    codes = []
    for name in ("ann", "bob", "cy"):
        token = _invite(web_store.store, name)
        with TestClient(app, base_url=PUBLIC) as client:
            assert sign_in(client, token).status_code == 303
            codes += [cast_vote(client, OPEN).status_code for _ in range(3)]
    assert codes.count(200) == 4 and codes.count(429) == 5


def test_two_hundred_wrong_tokens_are_throttled(shared: TestClient, clock: ManualClock) -> None:
    """Before: 200 wrong tokens checked in 9.4 s. Now one is checked, the other 199 get 429,
    and each failure doubles the wait (1, 2, 4 s); the right token must wait its turn too."""
    codes = [sign_in(shared, f"guess-{i}").status_code for i in range(200)]
    assert codes.count(403) == 1 and codes.count(429) == 199
    waits = []
    for _ in range(3):
        held = sign_in(shared, "guess")
        assert held.status_code == 429
        waits.append(int(held.headers["retry-after"]))
        clock.advance(waits[-1])
        assert sign_in(shared, "guess").status_code == 403
    assert waits == [1, 2, 4]
    assert sign_in(shared, OWNER_TOKEN).status_code == 429
    clock.advance(8)
    assert sign_in(shared, OWNER_TOKEN).status_code == 303
    assert sign_in(shared, "guess").status_code == 403  # a success started the count afresh
    clock.advance(1)
    assert sign_in(shared, "guess").status_code == 403


def test_sign_in_attempts_are_limited_even_when_right(
    shared: TestClient, clock: ManualClock
) -> None:
    """Five at once, then one every six seconds (10 a minute)."""
    codes = [sign_in(shared, OWNER_TOKEN).status_code for _ in range(7)]
    assert codes == [303] * 5 + [429] * 2
    clock.advance(6)
    assert sign_in(shared, OWNER_TOKEN).status_code == 303


def test_wrong_bearer_tokens_back_off_too(
    shared: TestClient, web_store: Fixture, clock: ManualClock
) -> None:
    url = f"/api/b/{CHOICE}/submissions?model=guessing"
    headers = {"Content-Type": "application/jsonl"}
    body = b'{"item_id": "mc00", "text": "A"}'
    codes = [
        shared.post(url, content=body, headers={**headers, "Authorization": f"Bearer g{i}"})
        for i in range(50)
    ]
    assert [c.status_code for c in codes].count(403) == 1
    assert codes[1].status_code == 429 and codes[1].headers["retry-after"] == "1"
    assert codes[1].json()["detail"].startswith("too many sign-in attempts")


def test_invite_sign_in_revoke_and_reinvite(shared: TestClient, web_store: Fixture) -> None:
    token = _invite(web_store.store, "alice")
    assert 'id="sign-in-first"' in shared.get(f"/b/{OPEN}/vote").text
    signed = sign_in(shared, token)
    assert signed.status_code == 303 and token not in signed.headers["set-cookie"]
    page = shared.get(f"/b/{OPEN}/vote").text
    assert '<b id="voter">alice</b>' in page and 'id="nav-identity"' in page
    assert cast_vote(shared, OPEN).status_code == 200
    assert _judges(web_store.store) == ["human:alice"]
    revoked = runner.invoke(cli, ["annotators", "revoke", "alice", "--store", web_store.store.url])
    assert revoked.exit_code == 0, revoked.output
    assert 'id="sign-in-first"' in shared.get(f"/b/{OPEN}/vote").text  # the cookie died
    assert sign_in(shared, token).status_code == 403
    new_token = _invite(web_store.store, "alice")
    assert new_token != token


def test_a_reinvite_ends_the_old_tokens_cookies(web_store: Fixture, clock: ManualClock) -> None:
    app = shared_app(web_store.store, clock)
    old = _invite(web_store.store, "alice")
    with TestClient(app, base_url=PUBLIC) as client:
        assert sign_in(client, old).status_code == 303
        _invite(web_store.store, "alice")
        assert 'id="sign-in-first"' in client.get(f"/b/{OPEN}/vote").text
        clock.advance(1)
        assert sign_in(client, old).status_code == 403


def _with_cookie(app_client: TestClient, value: str) -> int:
    app_client.cookies.set(IDENTITY_COOKIE, value)
    fields = form_fields(app_client, "/login")
    form = {"ballot": "b" * 22, "choice": "left", "csrf": fields["csrf"]}
    return app_client.post(f"/b/{OPEN}/vote", data=form).status_code


def test_forged_altered_and_expired_cookies_are_nobody(
    shared: TestClient, web_store: Fixture
) -> None:
    store = web_store.store
    assert sign_in(shared, _invite(store, "alice")).status_code == 303
    payload, _, signature = shared.cookies[IDENTITY_COOKIE].partition(".")
    found = get_annotator(store, "alice")
    assert found is not None
    alice = Identity("alice", "annotator", found.token_hash[:16])
    secret, now = web_secret(store), time.time()
    forged = {
        "altered": f"{payload}x.{signature}",
        "another key": cookie_value(b"k" * 32, alice, now),
        "expired": cookie_value(secret, alice, now - 31 * 86400),
        "not invited": cookie_value(secret, Identity("bob", "annotator", alice.binding), now),
        "promoted": cookie_value(secret, Identity("alice", "owner", alice.binding), now),
        "garbage": "garbage",
    }
    for what, value in forged.items():
        shared.cookies.clear()
        assert _post_with_cookie(shared, value) == 403, what
    shared.cookies.clear()
    assert _post_with_cookie(shared, cookie_value(secret, alice, now)) == 409  # alice, no ballot


def _post_with_cookie(client: TestClient, value: str) -> int:
    """Status of a vote (on a made-up ballot) sent with ``value`` as the identity cookie."""
    client.cookies.set(IDENTITY_COOKIE, value)
    form = {"ballot": "b" * 22, "choice": "left", "csrf": form_fields(client, "/login")["csrf"]}
    return client.post(f"/b/{OPEN}/vote", data=form).status_code


def test_a_ballot_is_only_its_annotators(web_store: Fixture, clock: ManualClock) -> None:
    app = shared_app(web_store.store, clock)
    alice, bob = _invite(web_store.store, "alice"), _invite(web_store.store, "bob")
    with TestClient(app, base_url=PUBLIC) as a, TestClient(app, base_url=PUBLIC) as b:
        assert sign_in(a, alice).status_code == 303
        clock.advance(1)
        assert sign_in(b, bob).status_code == 303
        ballot = form_fields(a, f"/b/{OPEN}/vote")["ballot"]
        bobs = {"ballot": ballot, "choice": "left", "csrf": form_fields(b, "/login")["csrf"]}
        assert b.post(f"/b/{OPEN}/vote", data=bobs).status_code == 409
        alices = {**bobs, "csrf": form_fields(a, "/login")["csrf"]}
        assert a.post(f"/b/{OPEN}/vote", data=alices).status_code == 200
    assert _judges(web_store.store) == ["human:alice"]


def test_invitees_neither_submit_nor_see_the_owner_page(
    shared: TestClient, web_store: Fixture
) -> None:
    assert sign_in(shared, _invite(web_store.store, "alice")).status_code == 303
    assert shared.get("/annotators").status_code == 403
    fields = form_fields(shared, f"/b/{CHOICE}/submit")
    reply = shared.post(
        f"/b/{CHOICE}/submit",
        data={"model": "m", "csrf": fields["csrf"]},
        files={"answers": ("a.jsonl", b'{"item_id": "mc00", "text": "A"}', "application/jsonl")},
    )
    assert reply.status_code == 403 and "owner" in reply.text
    exclude = {"annotator": "alice", "action": "exclude", "csrf": fields["csrf"]}
    assert shared.post("/annotators/exclusions", data=exclude).status_code == 403


def test_the_owner_page_counts_flags_and_excludes(web_store: Fixture, clock: ManualClock) -> None:
    """alice always clicks Answer 1 on 10 votes: flagged; the owner excludes her and the
    leaderboard's vote count drops to the owner's own votes, then includes her again."""
    app = shared_app(web_store.store, clock, vote_limit=NO_LIMIT)
    with TestClient(app, base_url=PUBLIC) as voter, TestClient(app, base_url=PUBLIC) as owner:
        assert sign_in(voter, _invite(web_store.store, "alice")).status_code == 303
        for _ in range(10):
            assert cast_vote(voter, OPEN, "left").status_code == 200
        clock.advance(1)
        assert sign_in(owner, OWNER_TOKEN).status_code == 303
        assert cast_vote(owner, OPEN, "tie").status_code == 200
        page = owner.get(f"/annotators?benchmark={OPEN}").text
        row = re.search(r'<tr data-annotator="alice".*?</tr>', page, re.S)
        assert row is not None
        assert '<td class="num votes">10</td>' in row.group(0)
        assert "one side: Answer 1 in 10 of 10 decisive votes" in row.group(0)
        assert "fast: median 0.0 s" in row.group(0)  # a script, not a reader
        assert _votes_shown(owner) == 11
        csrf = form_fields(owner, "/login")["csrf"]
        form = {"annotator": "alice", "action": "exclude", "reason": "one side", "csrf": csrf}
        done = owner.post("/annotators/exclusions", data=form, follow_redirects=False)
        assert done.status_code == 303
        assert 'class="excluded flagged"' in owner.get("/annotators").text
        assert _votes_shown(owner) == 1
        assert len(_judges(web_store.store)) == 11  # stored all along
        form["action"] = "include"
        assert owner.post("/annotators/exclusions", data=form).status_code == 200
        assert _votes_shown(owner) == 11
        unknown = {**form, "annotator": "nobody"}
        assert owner.post("/annotators/exclusions", data=unknown).status_code == 404


def _votes_shown(client: TestClient) -> int:
    found = re.search(r'id="votes-count" data-votes="(\d+)"', client.get(f"/b/{OPEN}").text)
    return int(found.group(1)) if found else 0


def test_local_mode_is_the_owner_without_signing_in(web_store: Fixture) -> None:
    """One trusted user, named by the server; an imported annotator's hostile name stays text
    on the owner's page."""
    hostile = "<script>alert(1)</script>"
    put_judgments(
        web_store.store,
        [Judgment(item_id="op00", judge=f"human:{hostile}", protocol="human", model_a="m/bad")],
    )
    settings = WebSettings(owner="me")
    with TestClient(create_app(web_store.store, settings), base_url=LOCAL) as client:
        assert 'id="local-mode"' in client.get("/login").text
        page = client.get("/annotators")
        assert page.status_code == 200
        assert hostile not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
        assert cast_vote(client, OPEN, annotator="someone-else").status_code == 200
    judges = _judges(web_store.store)
    assert judges == sorted(["human:me", f"human:{hostile}"])


def test_the_owner_name_cannot_be_an_invitees(web_store: Fixture) -> None:
    _invite(web_store.store, "bob")
    with pytest.raises(ValueError, match="invited annotator"):
        create_app(web_store.store, WebSettings(owner="bob"))
    with pytest.raises(ValueError, match="annotator name"):
        create_app(web_store.store, WebSettings(owner="<b>"))
    refused = runner.invoke(cli, ["annotators", "invite", "owner", "--store", web_store.store.url])
    assert refused.exit_code == 2 and "owner" in refused.output


def test_sign_ins_survive_a_restart_and_the_secret_stays_private(
    web_store: Fixture, clock: ManualClock
) -> None:
    """The secret lives in the store: a second server (or a restart) accepts the cookie."""
    token = _invite(web_store.store, "alice")
    with TestClient(shared_app(web_store.store, clock), base_url=PUBLIC) as first:
        assert sign_in(first, token).status_code == 303
        cookie = first.cookies[IDENTITY_COOKIE]
    with TestClient(shared_app(web_store.store, clock), base_url=PUBLIC) as second:
        second.cookies.set(IDENTITY_COOKIE, cookie)
        assert '<b id="voter">alice</b>' in second.get(f"/b/{OPEN}/vote").text
        secret = web_secret(web_store.store).hex()
        for url in ("/", "/login", f"/b/{OPEN}", f"/b/{OPEN}/vote"):
            assert secret not in second.get(url).text
