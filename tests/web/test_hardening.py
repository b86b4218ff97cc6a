"""Host allow-list (DNS rebinding), HEAD, field caps, names every route reaches, and the serve
command's write token kept off the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from web.conftest import CHOICE, LOCAL, OPEN, Fixture

from lvlmbench.cli import app as cli_app
from lvlmbench.store import (
    iter_judgments,
    iter_responses,
    put_benchmark,
    put_items,
    put_responses,
)
from lvlmbench.types import Response
from lvlmbench.web import WebSettings, allowed_host_names, create_app
from lvlmbench.web.submissions import MAX_ANSWER_CHARS

TOKEN = "t0ken-from-a-file"


def _client(fixture: Fixture, base_url: str, **settings: Any) -> TestClient:
    return TestClient(create_app(fixture.store, WebSettings(**settings)), base_url=base_url)


def _vote_form(client: TestClient) -> dict[str, str]:
    page = client.get(f"/b/{OPEN}/vote")
    fields = dict(re.findall(r'name="(ballot|csrf)" value="([^"]+)"', page.text))
    return {**fields, "choice": "left"}


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:8000", "http://localhost:9999", "http://[::1]:8000", "http://LOCALHOST."],
)
def test_loopback_server_answers_its_own_names_on_any_port(
    web_store: Fixture, base_url: str
) -> None:
    with _client(web_store, base_url) as client:
        assert client.get(f"/b/{CHOICE}").status_code == 200


@pytest.mark.parametrize("path", ["/", "/healthz", f"/b/{CHOICE}", f"/b/{OPEN}/vote"])
def test_rebinding_host_is_refused_on_every_route(web_store: Fixture, path: str) -> None:
    with _client(web_store, "http://attacker.example:8000") as client:
        reply = client.get(path)
    assert reply.status_code == 400
    assert "attacker.example" in reply.text and "--allow-host" in reply.text
    assert "mc-bench" not in reply.text  # nothing of the store leaks


def test_rebinding_page_cannot_vote_even_with_a_valid_form(web_store: Fixture) -> None:
    with _client(web_store, LOCAL) as honest:
        form = _vote_form(honest)
        cookies = dict(honest.cookies)
    with _client(web_store, "http://rebind.example") as rebound:
        rebound.cookies.update(cookies)
        assert rebound.post(f"/b/{OPEN}/vote", data=form).status_code == 400
    assert list(iter_judgments(web_store.store, protocol="human")) == []


def test_missing_host_header_is_refused(client: TestClient) -> None:
    reply = client.get("/healthz", headers={"Host": ""})
    assert reply.status_code == 400


def test_allow_host_adds_names_and_star_allows_any(web_store: Fixture) -> None:
    with _client(web_store, "http://bench.lan:8000", allowed_hosts=("Bench.LAN",)) as client:
        assert client.get("/healthz").status_code == 200
    with _client(web_store, "http://other.lan", allowed_hosts=("bench.lan",)) as client:
        assert client.get("/healthz").status_code == 400
    with _client(web_store, "http://anything.example", allowed_hosts=("*",)) as client:
        assert client.get("/healthz").status_code == 200


def test_allowed_names_per_bound_address() -> None:
    assert allowed_host_names("127.0.0.1") == {"127.0.0.1", "localhost", "[::1]"}
    assert allowed_host_names("::1") == {"127.0.0.1", "localhost", "[::1]"}
    assert allowed_host_names("192.168.1.5") == {"192.168.1.5"}
    assert allowed_host_names("fe80::1") == {"[fe80::1]"}
    # 0.0.0.0 has no name of its own: this machine's names plus what the operator names.
    loopback = {"127.0.0.1", "localhost", "[::1]"}
    assert allowed_host_names("0.0.0.0", ["bench.lan"]) == {"bench.lan", *loopback}
    assert allowed_host_names("::") == loopback


@pytest.mark.parametrize("path", ["/", f"/b/{CHOICE}", f"/b/{OPEN}/items", "/healthz"])
def test_head_answers_like_get_without_a_body(client: TestClient, path: str) -> None:
    got = client.get(path)
    head = client.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["x-frame-options"] == "DENY"


def test_head_of_an_image_and_of_a_missing_page(client: TestClient, web_store: Fixture) -> None:
    digest = web_store.choice_items[0].images[0]
    head = client.head(f"/images/{digest}")
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(client.get(f"/images/{digest}").content)
    assert client.head("/b/no-such-bench").status_code == 404


def test_a_huge_single_answer_is_refused_and_nothing_stored(
    client: TestClient, web_store: Fixture
) -> None:
    rows = [
        {"item_id": "mc00", "text": "A"},
        {"item_id": "mc01", "text": "B" * (MAX_ANSWER_CHARS + 1)},
    ]
    body = "\n".join(json.dumps(r) for r in rows).encode()
    reply = client.post(
        f"/api/b/{CHOICE}/submissions?model=huge",
        content=body,
        headers={"Content-Type": "application/jsonl"},
    )
    assert reply.status_code == 422
    assert reply.json()["errors"] == [
        f"line 2: answer of {MAX_ANSWER_CHARS + 1:,} characters (at most {MAX_ANSWER_CHARS:,})"
    ]
    assert list(iter_responses(web_store.store, model="submission/huge")) == []
    at_cap = b'{"item_id": "mc00", "text": "' + b"A" * MAX_ANSWER_CHARS + b'"}'
    accepted = client.post(
        f"/api/b/{CHOICE}/submissions?model=long",
        content=at_cap,
        headers={"Content-Type": "application/jsonl"},
    )
    assert accepted.status_code == 202


@pytest.mark.parametrize("name", ["vqa.v2@keys-A", "mmbench+cn:dev_2", "空间理解-s0", "x"])
def test_every_allowed_benchmark_name_is_reachable(
    client: TestClient, web_store: Fixture, name: str
) -> None:
    item = web_store.choice_items[0].model_copy(update={"id": f"copy-{name}", "benchmark": name})
    put_items(web_store.store, [item])
    put_benchmark(web_store.store, name, "autobench", {})
    for path in (f"/b/{name}", f"/b/{name}/items", f"/b/{name}/items/{item.id}"):
        assert client.get(path).status_code == 200, path
    assert f'href="/b/{name}"' in client.get("/").text


def _serve(args: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run ``lvlmbench serve`` with uvicorn.run caught: returns (result, the app it would serve)."""
    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.update(app=app, **kw))
    result = CliRunner().invoke(cli_app, ["serve", *args], env=env)
    return result, started.get("app")


def test_serve_refuses_a_token_on_the_command_line(
    web_store: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--host", "0.0.0.0", "--token", TOKEN, "--store", web_store.store.url]
    result, served = _serve(args, {}, monkeypatch)
    assert result.exit_code == 2 and served is None
    assert "LVLMBENCH_WEB_TOKEN" in result.output and "--token-file" in result.output
    assert TOKEN not in result.output


def test_serve_reads_the_token_from_a_file_or_the_environment(
    web_store: Fixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    common = ["--host", "0.0.0.0", "--allow-host", "bench.lan", "--store", web_store.store.url]
    from_file, app = _serve([*common, "--token-file", str(token_file)], {}, monkeypatch)
    assert from_file.exit_code == 0, from_file.output
    assert app.state.settings.token == TOKEN
    assert app.state.settings.allowed_hosts == ("bench.lan",)
    from_env, app = _serve(common, {"LVLMBENCH_WEB_TOKEN": "env-token"}, monkeypatch)
    assert from_env.exit_code == 0 and app.state.settings.token == "env-token"
    token_file.write_text("\n", encoding="utf-8")
    empty, served = _serve([*common, "--token-file", str(token_file)], {}, monkeypatch)
    assert empty.exit_code == 2 and "empty" in empty.output and served is None


def test_item_page_says_which_answers_an_llm_read(client: TestClient, web_store: Fixture) -> None:
    read = Response(
        item_id="mc03",
        model="m/llm-read",
        text="the fourth one, I reckon",
        extracted="D",
        extracted_by="fake/reader",
        rule_reason="no option letter or option text found",
    )
    put_responses(web_store.store, [read])
    page = client.get(f"/b/{CHOICE}/items/mc03").text
    assert "read by fake/reader" in page
    assert page.count("read by ") == 1  # the rule reads say nothing
