"""The item page as a transcript, checked against what a local OpenAI-compatible server really
received: the messages shown are the messages sent (text and images, in order), and the raw
reply, tokens, cache state and extraction shown are the call's."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from fastapi.testclient import TestClient
from pngs import solid_png
from typer.testing import CliRunner
from web.conftest import LOCAL

from lvlmbench.cli import app as cli
from lvlmbench.models import model_identity
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem
from lvlmbench.web import create_app

BENCH = "shapes"
runner = CliRunner()


class Recorder:
    """Answers every request and keeps the last message of each, as the server parsed it."""

    def __init__(self) -> None:
        self.seen: list[dict[str, object]] = []
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self._lock:
            self.seen.append(json.loads(prompt))
        text = json.dumps(prompt)
        return "Answer: C" if "number 1" in text else "I think it is (B)"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Two items: one image then text; one whose question places two images mid-text."""
    path = tmp_path / "t.db"
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "imported", {"source": "test"})
    red, blue = (
        store.put_image(solid_png((200, 0, 0), size=(24, 16))),
        store.put_image(solid_png((0, 0, 200), size=(24, 16))),
    )
    options = {"A": "circle", "B": "square", "C": "star", "D": "heart"}
    put_items(
        store,
        [
            BenchmarkItem(
                id="s1", benchmark=BENCH, kind="mc", question="Which shape is number 1?",
                options=options, answer="C", images=[red], meta={"difficulty": "easy"},
            ),
            BenchmarkItem(
                id="s2", benchmark=BENCH, kind="mc",
                question="Compare <image 2> with <image 1>: which shape is shared?",
                options=options, answer="A", images=[red, blue], meta={"difficulty": "hard"},
            ),
        ],
    )  # fmt: skip
    store.close()
    return path


def _evaluate(db: Path, spec: str) -> None:
    result = runner.invoke(cli, ["evaluate", BENCH, "-m", spec, "--store", str(db)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def evaluated(db: Path) -> Iterator[tuple[Path, str, Recorder]]:
    recorder = Recorder()
    with FakeOpenAIServer(answer=recorder) as server:
        spec = f"openai/m?base_url={server.base_url}"
        _evaluate(db, spec)
        yield db, spec, recorder


def _client(db: Path) -> Iterator[TestClient]:
    store = Store.open(str(db))
    try:
        with TestClient(create_app(store), base_url=LOCAL) as client:
            yield client
    finally:
        store.close()


def _item_calls(recorder: Recorder) -> list[dict[str, object]]:
    """The items' messages the server received: the run's other call is its image-token check,
    the first item's question once more without its image (text alone, a plain string)."""
    calls = [m for m in recorder.seen if isinstance(m["content"], list)]
    checks = [m for m in recorder.seen if isinstance(m["content"], str)]
    assert len(checks) == 1 and "number 1" in str(checks[0]["content"])
    return calls


def _sent_parts(message: dict[str, object]) -> list[tuple[str, str]]:
    """(text, ...) / (image, sha256 of the decoded bytes) for each part the server received."""
    parts = []
    content = message["content"]
    assert isinstance(content, list)
    for part in content:
        if part["type"] == "text":
            parts.append(("text", part["text"]))
        else:
            data = part["image_url"]["url"].split(",", 1)[1]
            parts.append(("image", hashlib.sha256(base64.b64decode(data)).hexdigest()))
    return parts


def _shown_parts(html: str, model: str) -> list[tuple[str, str]]:
    section = re.search(
        rf'<section class="transcript"[^>]*data-model="{re.escape(model)}".*?</section>', html, re.S
    )
    assert section is not None
    messages = section.group(0).split("<h4>Reply</h4>")[0]
    found = re.findall(
        r'<img class="thumb" src="/images/([0-9a-f]{64})"|<div class="text sent-text">(.*?)</div>',
        messages,
        re.S,
    )
    return [("image", image) if image else ("text", unescape(text)) for image, text in found]


def test_item_page_shows_exactly_the_messages_the_server_received(
    evaluated: tuple[Path, str, Recorder],
) -> None:
    db, spec, recorder = evaluated
    model = model_identity(spec)
    received = {}
    for message in _item_calls(recorder):
        parts = _sent_parts(message)
        received["s1" if any("number 1" in p for _, p in parts) else "s2"] = parts
    assert len(_item_calls(recorder)) == 2
    # The placeholders put the blue picture first, mid-sentence: order matters, not just content.
    assert [kind for kind, _ in received["s2"]] == ["text", "image", "text", "image", "text"]
    for client in _client(db):
        for item_id in ("s1", "s2"):
            page = client.get(f"/b/{BENCH}/items/{item_id}")
            assert page.status_code == 200
            assert _shown_parts(page.text, model) == received[item_id], item_id
            for _, digest in (p for p in received[item_id] if p[0] == "image"):
                assert client.get(f"/images/{digest}").status_code == 200


def test_transcript_shows_the_call_raw_reply_extraction_and_cache_state(
    evaluated: tuple[Path, str, Recorder],
) -> None:
    db, spec, _ = evaluated
    model = model_identity(spec)
    for client in _client(db):
        first = client.get(f"/api/b/{BENCH}/items/s2").json()
        page = client.get(f"/b/{BENCH}/items/s2").text
    [shown] = first["transcripts"]
    response = shown["response"]
    assert response["model"] == model and response["extracted"] == "B"
    assert response["cached"] is False and response["cache_key"]
    assert shown["call"]["text"] == "I think it is (B)" == response["text"]
    raw = json.loads(shown["call"]["raw_json"])
    assert raw["choices"][0]["message"]["content"] == "I think it is (B)"
    assert shown["call"]["finish_reason"] == "stop"
    assert "requested" in page and "by the extraction rules" in page
    assert f"{response['usage']['input_tokens']} in · {response['usage']['output_tokens']} out" in (
        page
    )


def test_a_rerun_from_the_cache_is_marked_as_replayed(db: Path) -> None:
    recorder = Recorder()
    with FakeOpenAIServer(answer=recorder) as server:
        spec = f"openai/m?base_url={server.base_url}"
        _evaluate(db, spec)
        with sqlite3.connect(db) as conn:
            conn.execute("DELETE FROM responses")
        _evaluate(db, spec)
    assert len(recorder.seen) == 3  # the items and the image check; the second run asked nothing
    for client in _client(db):
        body = client.get(f"/api/b/{BENCH}/items/s1").json()
        page = client.get(f"/b/{BENCH}/items/s1").text
    [shown] = body["transcripts"]
    assert shown["response"]["cached"] is True
    assert shown["call"]["text"] == "Answer: C"  # the raw output is still the cached call's
    assert "replayed from the cache" in page


def test_old_rows_and_unsendable_items_say_why_nothing_is_shown(tmp_path: Path) -> None:
    from web.conftest import CHOICE, build_store

    built = build_store(tmp_path)
    with TestClient(create_app(built.store), base_url=LOCAL) as client:
        page = client.get(f"/b/{CHOICE}/items/mc01")
        body = client.get(f"/api/b/{CHOICE}/items/mc01").json()
    built.store.close()
    assert page.status_code == 200
    assert "raw output: not recorded" in page.text and "cached</th><td>not recorded" in page.text
    assert all(t["call"] is None and t["messages"] for t in body["transcripts"])


def test_previous_and_next_walk_the_benchmark_in_order(db: Path) -> None:
    for client in _client(db):
        first = client.get(f"/b/{BENCH}/items/s1").text
        last = client.get(f"/b/{BENCH}/items/s2").text
        neighbours = client.get(f"/api/b/{BENCH}/items/s1").json()["neighbours"]
    assert f'href="/b/{BENCH}/items/s2" id="next"' in first and 'id="previous"' not in first
    assert f'href="/b/{BENCH}/items/s1" id="previous"' in last and 'id="next"' not in last
    assert neighbours == {"previous": None, "next": "s2", "position": 1, "total": 2}


def test_a_secret_in_an_old_cache_row_is_masked_on_the_page(tmp_path: Path) -> None:
    from web.conftest import CHOICE, build_store

    from lvlmbench.models import register_secret
    from lvlmbench.store import _schema as tables
    from lvlmbench.store import put_responses
    from lvlmbench.types import ModelOutput, Response

    secret = "sk-transcript-secret-0042"
    register_secret(secret)
    built = build_store(tmp_path)
    # A row written before outputs were masked: the gateway echoed the key in text and body.
    leaked = ModelOutput(text=f"B (key {secret})", raw={"debug": {"authorization": secret}})
    built.store.put_rows(
        tables.cache,
        [
            {"key": "k" * 64, "kind": "chat", "spec": "m/old", "output": leaked.model_dump_json()}
            | {"input_tokens": 0, "output_tokens": 0, "created_at": 0.0}
        ],
    )
    put_responses(
        built.store, [Response(item_id="mc01", model="m/old", text="B", cache_key="k" * 64)]
    )
    with TestClient(create_app(built.store), base_url=LOCAL) as client:
        page = client.get(f"/b/{CHOICE}/items/mc01").text
        body = client.get(f"/api/b/{CHOICE}/items/mc01").text
    built.store.close()
    assert "raw provider output" in page and "authorization" in page
    assert secret not in page and secret not in body


def test_item_page_labels_samples_numbers_options_once_and_shows_a_baselines_reply(
    db: Path,
) -> None:
    # Two samples of one baseline: main showed two sections both titled "baseline/random ·
    # default", "raw output: not in the cache (failed calls are not cached)" for an answer that
    # made no call, and options as "1. A. circle" (an ordered list numbering lettered options).
    args = ["evaluate", BENCH, "-m", "baseline/random", "--epochs", "2", "--store", str(db)]
    assert runner.invoke(cli, args).exit_code == 0
    [page] = _client_page(db, "/b/shapes/items/s1")
    titles = re.findall(r"<h3>baseline/random <span class=\"note\">([^<]*)</span>", page)
    assert titles == ["· default · sample 1", "· default · sample 2"], titles
    assert "not in the cache" not in page
    assert page.count("the reply above is the whole output") == 2
    assert '<ol class="opts">' in page  # numbering is the stylesheet's: it must be off
    assert 'href="/b/shapes/vote"' not in page  # keyed items: nothing to vote on
    [css] = _client_page(db, "/static/app.css")
    assert re.search(r"(^|\n|\} )\.opts \{[^}]*list-style: none", css), "options numbered"


def _client_page(db: Path, path: str) -> Iterator[str]:
    clients = _client(db)
    try:
        response = next(clients).get(path)
        assert response.status_code == 200, response.text
        yield unescape(response.text)
    finally:
        clients.close()
