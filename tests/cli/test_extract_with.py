"""`lvlmbench evaluate --extract-with SPEC` over a real local HTTP endpoint: after the examinee
run, only its unparseable answers are sent; the accuracy output counts the LLM's reads; a
second run sends nothing."""

from __future__ import annotations

import json
from pathlib import Path

from http_fixture import RecordingServer
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status

EXAMINEE = "baseline/oracle"
OPTIONS = {"A": "red", "B": "blue", "C": "green"}


def _completion(content: str) -> dict[str, object]:
    return {
        "id": "x",
        "object": "chat.completion",
        "model": "reader",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
    }


def _store(db: Path) -> None:
    store = Store.open(str(db))
    items = [
        BenchmarkItem(
            id=f"q{i}", benchmark="b", kind="mc", question="Colour?", options=OPTIONS, answer="B"
        )
        for i in range(3)
    ]
    put_benchmark(store, "b", "test", {})
    put_items(store, items)
    # The examinee already answered (the run resumes past them): one read by the rules, two
    # the rules could not read.
    put_responses(
        store,
        [
            Response(item_id="q0", model=EXAMINEE, text="B", extracted="B"),
            Response(
                item_id="q1",
                model=EXAMINEE,
                text="sky-ish",
                status=Status.UNPARSEABLE,
                reason="no option letter or option text found",
            ),
            Response(
                item_id="q2",
                model=EXAMINEE,
                text="dunno",
                status=Status.UNPARSEABLE,
                reason="no option letter or option text found",
            ),
        ],
    )
    store.close()


def test_evaluate_extract_with_reads_unparseable_answers_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    db = tmp_path / "s.db"
    _store(db)
    with RecordingServer() as server:
        server.reply({"data": []})  # the endpoint check before the run: GET /v1/models
        # One answer read, one "none" (order of the two requests does not matter for the counts).
        server.reply(_completion('{"answer": "B"}'))
        server.reply(_completion('{"answer": "none"}'))
        spec = f"openai/reader?base_url={server.url}/v1"
        args = [
            "evaluate",
            "b",
            "-m",
            EXAMINEE,
            "--by",
            "",
            "--extract-with",
            spec,
            "--json",
            "--concurrency",
            "1",
            "--store",
            str(db),
        ]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        data = json.loads(first.stdout)
        assert data["extraction"]["asked"] == 2 and data["extraction"]["read"] == 1
        assert data["extraction"]["no_answer"] == 1
        (row,) = data["accuracy"]
        assert row["answered"] == 3 and row["read_by_llm"] == 1 and row["unparseable"] == 1
        posts = [r for r in server.requests if r.method == "POST"]
        sent = [json.loads(r.body) for r in posts]
        assert len(sent) == 2
        prompts = " ".join(
            m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for body in sent
            for m in body["messages"]
        )
        assert "sky-ish" in prompts and "dunno" in prompts and "image_url" not in prompts
        server.reply({"data": []})  # the second run's endpoint check; nothing else is asked
        second = CliRunner().invoke(app, args)
        assert second.exit_code == 0, second.output
        assert json.loads(second.stdout)["extraction"]["asked"] == 0
        assert sum(r.method == "POST" for r in server.requests) == 2
        server.reply({"data": []})
        text = CliRunner().invoke(app, [a for a in args if a != "--json"])
        assert "read by LLM" in text.output and "extractor openai/reader" in text.output
    store = Store.open(str(db))
    try:
        read = [r for r in iter_responses(store, model=EXAMINEE) if r.extracted_by]
        assert len(read) == 2 and all(r.rule_reason for r in read)
    finally:
        store.close()
