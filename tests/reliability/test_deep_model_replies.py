"""A server or a model that answers with JSON nested past Python's stack is a bad reply, never
a RecursionError traceback: the HTTP body is "not valid JSON" (an error the run records), a
reply asked for structured output is unparseable, and a ``param.*`` value stays plain text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from http_fixture import RecordingServer, chat_completion
from pydantic import BaseModel

from lvlmbench.models import ModelClient, RetryPolicy, extract_json, load_chat_model, parse_param
from lvlmbench.store import Store
from lvlmbench.types import Message

DEEP = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError on this


class Answer(BaseModel):
    a: int


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")


def test_the_decoder_itself_overflows_on_this_input() -> None:
    import json

    with pytest.raises(RecursionError):
        json.loads(DEEP)


async def test_a_body_nested_past_the_stack_is_a_bad_reply(
    server: RecordingServer, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    client = ModelClient(load_chat_model(f"openai/m?base_url={server.url}/v1"), store)
    client.retry = RetryPolicy(max_retries=0, base_delay=0.01)
    server.reply(DEEP.encode())
    output = await client.generate([Message.user("hi")])
    await client.aclose()
    assert not output.ok
    assert "not valid JSON" in (output.reason or "")


def test_a_structured_reply_nested_past_the_stack_is_no_json() -> None:
    with pytest.raises(ValueError, match="nests too deeply"):
        extract_json(f"Here: {DEEP}")


async def test_a_structured_call_with_such_a_reply_is_unparseable(
    server: RecordingServer, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    client = ModelClient(load_chat_model(f"openai/m?base_url={server.url}/v1"), store)
    for _ in range(3):  # the first ask and both re-asks get the same reply
        server.reply(chat_completion(DEEP))
    result = await client.generate_json([Message.user("give JSON")], Answer)
    await client.aclose()
    assert result.value is None
    assert result.status == "unparseable"


def test_a_param_nested_past_the_stack_is_plain_text() -> None:
    assert parse_param(DEEP) == DEEP
