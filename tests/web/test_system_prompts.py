"""A model's ``--system-prompt`` is stored once, by the digest its identity carries, and the
item page shows it as the server received it: after a real run through the CLI (two worker
processes writing the same prompt at once, then a resumed run), through the web app's
TestClient; a store written before prompts were kept still reads, and gains the text when the
same command runs again."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from cli_runs import clean_env, count_rows, evaluate_json
from fastapi.testclient import TestClient
from http_fixture import ChatRecorder
from quiz_store import write_quiz
from web.conftest import LOCAL

from lvlmbench.store import Store
from lvlmbench.web import create_app

BENCH = "quiz"
ITEMS = 6
PROMPT = "You grade <b>carefully</b>.\n  Answer with one letter & nothing else."
DIGEST = "sha256:" + hashlib.sha256(PROMPT.encode()).hexdigest()[:16]  # as the identity says


def _letter_a(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return "Answer: A", "stop"


def _client(db: Path) -> Iterator[TestClient]:
    store = Store.open(str(db))
    try:
        with TestClient(create_app(store), base_url=LOCAL) as client:
            yield client
    finally:
        store.close()


def _shown_messages(html: str) -> list[tuple[str, list[str]]]:
    """(role, texts) of each message under "Messages as sent" in the page's one transcript."""
    sent = html.split("<h4>Messages as sent</h4>")[1].split("<h4>Reply</h4>")[0]
    shown = []
    for chunk in sent.split('<div class="message ')[1:]:
        texts = re.findall(r'<div class="text sent-text">(.*?)</div>', chunk, re.S)
        shown.append((chunk.split('"', 1)[0], [unescape(text) for text in texts]))
    return shown


@pytest.mark.timeout(180)
def test_the_prompt_is_kept_once_and_shown_as_the_server_received_it(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", BENCH, ITEMS)
    with ChatRecorder(_letter_a) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        two_workers = [
            sys.executable, "-m", "lvlmbench", "evaluate", BENCH, "-m", spec, "--store", str(db),
            "--system-prompt", PROMPT, "--workers", "2", "--json",
        ]  # fmt: skip
        done = subprocess.run(two_workers, capture_output=True, env=clean_env(), timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        resumed = evaluate_json(db, BENCH, "-m", spec, "--system-prompt", PROMPT)
        received = server.chats
    assert len(received) == ITEMS and resumed["runs"][0]["skipped"] == ITEMS
    assert {json.dumps(body["messages"][0]) for body in received} == {
        json.dumps({"role": "system", "content": PROMPT})
    }
    assert count_rows(db, "system_prompts") == 1
    assert count_rows(db, "system_prompts", f"digest = '{DIGEST}'") == 1
    first = next(b for b in received if "Question 0:" in json.dumps(b["messages"]))
    for client in _client(db):
        page = client.get(f"/b/{BENCH}/items/q0000")
        body = client.get(f"/api/b/{BENCH}/items/q0000").json()
    assert page.status_code == 200
    assert _shown_messages(page.text) == [(m["role"], [m["content"]]) for m in first["messages"]]
    assert "not in this store" not in page.text
    [transcript] = body["transcripts"]
    shown = [(m["role"], [p["text"] for p in m["parts"]]) for m in transcript["messages"]]
    assert shown == [(m["role"], [m["content"]]) for m in first["messages"]]


def test_a_store_from_before_prompts_were_kept_reads_and_gains_the_text_on_a_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = write_quiz(tmp_path / "s.db", BENCH, 2)
    with ChatRecorder(_letter_a) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        evaluate_json(db, BENCH, "-m", spec, "--system-prompt", PROMPT)
        with sqlite3.connect(db) as conn:  # as an older lvlmbench left it
            conn.execute("DROP TABLE system_prompts")
        monkeypatch.setattr("lvlmbench.store._opening.writable", lambda _path: False)
        for client in _client(db):  # read-only: no table is created, none is needed
            page = client.get(f"/b/{BENCH}/items/q0000")
        monkeypatch.undo()
        assert page.status_code == 200
        assert f"system prompt {DIGEST}" in page.text
        assert "not in this store" in page.text and "carefully" not in page.text
        again = evaluate_json(db, BENCH, "-m", spec, "--system-prompt", PROMPT)
        assert len(server.chats) == 2 and again["runs"][0]["skipped"] == 2  # nothing asked
    for client in _client(db):
        page = client.get(f"/b/{BENCH}/items/q0000")
    assert _shown_messages(page.text)[0] == ("system", [PROMPT])
    assert "not in this store" not in page.text
