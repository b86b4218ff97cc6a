"""A key too short to mask everywhere (``OPENAI_API_KEY=x`` for a local server): replies, images
and error messages stay whole, and the key still never reaches the store, a log or an error.

Masking a one-letter key wherever it occurred replaced every "x" inside base64 images (every
image reply became invalid base64, and text-mode generation stopped at the circuit breaker) and
inside Anthropic/Gemini reply bodies (``"type": "te***t"``: every answer read as empty).
"""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from http_fixture import RecordingServer
from PIL import Image

from lvlmbench.images import ImageClient, ImageRequest, load_image_model
from lvlmbench.models import ModelClient, RetryPolicy, RunAborted, load_chat_model
from lvlmbench.models import _secrets as secrets
from lvlmbench.models._secrets import redact_data, redact_server_text, redact_text, register_secret
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem, Message, Status

KEY = "x"


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets registered here are forgotten afterwards: a one-letter key must not go on
    masking other tests' server messages."""
    for name in ("_secrets", "_short", "_short_forms", "_short_words"):
        monkeypatch.setattr(secrets, name, getattr(secrets, name))


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


def _files_holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _noise_png(size: int = 64) -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((size, size), 60).convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


# --- the masking rules -------------------------------------------------------------------------


def test_a_short_secret_is_masked_only_where_it_can_only_be_a_credential() -> None:
    register_secret(KEY)
    answer = "Let x = 3; the box next to the xylophone is X."
    assert redact_text(answer) == answer  # the model's words are its own
    assert redact_text("you sent Bearer x.") == "you sent Bearer ***."
    assert redact_text('{"api_key": "x", "password=x"}') == '{"api_key": "***", "password=***"}'
    assert redact_text("http://alice:x@host/v1 and http://host:8080/x") == (
        "http://alice:***@host/v1 and http://host:8080/x"
    )
    # A server's error body is its words about our request: there the key stands as a word.
    assert redact_server_text("Incorrect API key provided: x. Expected sk-...") == (
        "Incorrect API key provided: ***. Expected sk-..."
    )
    reply = {"echo": {"x-api-key": "x", "authorization": "Basic x"}, "content": "x marks it"}
    assert redact_data(reply) == {
        "echo": {"x-api-key": "***", "authorization": "Basic ***"},
        "content": "x marks it",
    }


def test_a_long_secret_is_never_masked_inside_a_base64_payload() -> None:
    payload = base64.b64encode(_noise_png()).decode()
    inside = payload[400:420]  # 20 characters that do occur inside the image's base64
    register_secret(inside)
    data_url = f"data:image/png;base64,{payload}"
    body = {"b64_json": payload, "url": data_url, "note": f"echo {inside}"}
    assert redact_data(body) == {"b64_json": payload, "url": data_url, "note": "echo ***"}
    assert redact_text(f"see {data_url} and {inside}") == f"see {data_url} and ***"


# --- through the providers and clients ---------------------------------------------------------


async def test_a_one_letter_key_leaves_image_replies_whole(
    server: RecordingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    png = _noise_png()
    payload = base64.b64encode(png).decode()
    assert payload.count(KEY) > 50  # what masking used to replace
    store = Store.open(str(tmp_path / "s.db"))
    client = ImageClient(load_image_model(f"openai/gpt-image-1?base_url={server.url}/v1"), store)
    client.retry = RetryPolicy(max_retries=0)
    for n in range(3):
        server.reply({"data": [{"b64_json": payload, "revised_prompt": "Bearer x, a square"}]})
        output = await client.generate(ImageRequest(prompt=f"square {n}", width=64, height=64))
        assert output.ok, output.reason
        assert output.png == png  # byte for byte: the base64 was left alone
        assert output.revised_prompt == "Bearer ***, a square"
    await client.aclose()
    assert server.last.headers["authorization"] == "Bearer x"  # the key was sent
    store.engine.dispose()
    assert _files_holding(tmp_path, b"Bearer x") == []


def _openai(text: str) -> dict[str, Any]:
    return {
        "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 4},
        "echo": {"x-api-key": "x"},
    }


def _anthropic(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 4},
        "echo": {"x-api-key": "x"},
    }


def _google(text: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"parts": [{"text": text}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4},
        "echo": {"x-api-key": "x"},
    }


CHAT: dict[str, tuple[str, str, Callable[[str], dict[str, Any]]]] = {
    "openai": ("openai/m?base_url={url}/v1", "OPENAI_API_KEY", _openai),
    "anthropic": ("anthropic/m?base_url={url}", "ANTHROPIC_API_KEY", _anthropic),
    "google": ("google/m?base_url={url}", "GOOGLE_API_KEY", _google),
}


@pytest.mark.parametrize("provider", sorted(CHAT))
async def test_a_one_letter_key_leaves_chat_answers_whole(
    provider: str, server: RecordingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, env, reply = CHAT[provider]
    monkeypatch.setenv(env, KEY)
    server.reply(reply("x = 4, so the box is next (you sent Bearer x)"))
    store = Store.open(str(tmp_path / "s.db"))
    client = ModelClient(load_chat_model(spec.format(url=server.url)), store)
    output = await client.generate([Message.user("Solve for x.")])
    await client.aclose()
    assert output.status is Status.OK
    assert output.text == "x = 4, so the box is next (you sent Bearer ***)"
    assert output.raw is not None and output.raw["echo"] == {"x-api-key": "***"}
    store.engine.dispose()
    assert _files_holding(tmp_path, b"Bearer x") == []
    assert _files_holding(tmp_path, b'"x-api-key": "x"') == []


ECHO = "Incorrect API key provided: x. Expected a key like sk-..."


async def test_an_error_echoing_a_short_key_stays_out_of_store_log_and_exception(
    server: RecordingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    store = Store.open(str(tmp_path / "s.db"))
    put_benchmark(store, "b", "test", {})
    put_items(store, [BenchmarkItem(id="q1", benchmark="b", question="Name x.", kind="open")])
    client = ModelClient(load_chat_model(f"openai/m?base_url={server.url}/v1"), store)
    client.retry = RetryPolicy(max_retries=1, base_delay=0.01)
    server.reply({"error": {"message": ECHO}}, 503)  # retried, and logged as such
    server.reply({"error": {"message": ECHO}}, 400)  # the item fails with this reason
    with caplog.at_level(logging.INFO, logger="lvlmbench"):
        summary = await run_examinee(store, "b", client)
    assert summary.failed == 1
    [response] = list(iter_responses(store))
    expected = "Incorrect API key provided: ***. Expected a key like sk-..."
    assert response.reason is not None and expected in response.reason  # nothing else masked
    assert "retry 1/1 in 0.0 s: HTTP 503" in caplog.text
    server.reply({"error": {"message": ECHO}}, 401)  # a bad key stops the run
    with pytest.raises(RunAborted) as aborted:
        await client.generate([Message.user("again")])
    await client.aclose()
    assert expected in str(aborted.value)
    store.engine.dispose()
    for text in (response.reason, caplog.text, str(aborted.value), repr(aborted.value.args)):
        assert "provided: x" not in text
    assert _files_holding(tmp_path, b"provided: x") == []
