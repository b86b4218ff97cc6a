"""Anthropic and Google providers against a real local HTTP server that records each request.

Every test goes through the registry (``load_chat_model``) like the CLI does, and checks what
went over the wire as well as how the reply was read.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from http_fixture import RecordingServer
from PIL import Image
from pngs import solid_image
from pydantic import BaseModel
from sqlalchemy import String, Text, select

from lvlmbench.models import (
    ErrorKind,
    ModelClient,
    ProviderError,
    RegistryError,
    RetryPolicy,
    RunAborted,
    load_chat_model,
)
from lvlmbench.store import Store
from lvlmbench.store import _schema as tables
from lvlmbench.types import GenerationConfig, ImagePart, Message, Status

SECRET = "sk-test-SECRET123"


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("GOOGLE_API_KEY", SECRET)


PNG = solid_image((200, 30, 40), (3, 2), "PNG")
JPEG = solid_image((200, 30, 40), (3, 2), "JPEG")


def _conversation(*images: bytes) -> list[Message]:
    return [
        Message.system("Be brief."),
        Message.user("What is this?", *(ImagePart.from_bytes(i) for i in images)),
        Message.assistant("A square."),
        Message.user("What colour?"),
    ]


class Answer(BaseModel):
    colour: str
    count: int


# --- replies in each API's shape -----------------------------------------------------------------


def anthropic_reply(
    text: str = "Red.", stop: str = "end_turn", content: list[Any] | None = None
) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": content if content is not None else [{"type": "text", "text": text}],
        "stop_reason": stop,
        "usage": {"input_tokens": 21, "output_tokens": 3},
    }


def gemini_reply(text: str = "Red.", finish: str = "STOP") -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish}
        ],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 4},
    }


def anthropic_error(status: int, kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def google_error(status: int, state: str, message: str, details: list[Any] | None = None) -> Any:
    error = {"code": status, "message": message, "status": state, "details": details or []}
    return {"error": error}


@dataclass(frozen=True)
class Provider:
    """What differs between the providers in the shared tests."""

    name: str
    key_env: str
    ok: Callable[[str], dict[str, Any]]
    error: Callable[[int, str, str], Any]

    def load(self, server: RecordingServer, **options: Any) -> Any:
        return load_chat_model(f"{self.name}/test-model?base_url={server.url}", **options)


ANTHROPIC = Provider("anthropic", "ANTHROPIC_API_KEY", anthropic_reply, anthropic_error)
GOOGLE = Provider(
    "google",
    "GOOGLE_API_KEY",
    gemini_reply,
    lambda status, kind, message: google_error(status, kind, message),
)
PROVIDERS = pytest.mark.parametrize("provider", [ANTHROPIC, GOOGLE], ids=lambda p: p.name)


# --- Anthropic -------------------------------------------------------------------------------


async def test_anthropic_request_shape_and_reply(server: RecordingServer) -> None:
    server.reply(anthropic_reply("Red."))
    model = load_chat_model(f"anthropic/claude-x?base_url={server.url}")
    config = GenerationConfig(temperature=0.3, max_tokens=77, top_p=0.9, stop=("END",), seed=5)
    out = await model.generate(_conversation(PNG, JPEG), config)
    await model.aclose()

    sent = server.last
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["x-api-key"] == SECRET
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    body = sent.json()
    assert body["model"] == "claude-x"
    assert body["system"] == "Be brief."  # top level, not a turn
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    text, png, jpeg = body["messages"][0]["content"]
    assert text == {"type": "text", "text": "What is this?"}
    assert png["type"] == "image" and png["source"]["type"] == "base64"
    assert png["source"]["media_type"] == "image/png"
    assert base64.b64decode(png["source"]["data"]) == PNG
    assert jpeg["source"]["media_type"] == "image/jpeg"
    assert base64.b64decode(jpeg["source"]["data"]) == JPEG
    assert body["messages"][1]["content"] == [{"type": "text", "text": "A square."}]
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (77, 0.3, 0.9)
    assert body["stop_sequences"] == ["END"]
    assert "seed" not in body and "tools" not in body and "tool_choice" not in body

    assert out.status is Status.OK and out.text == "Red."
    assert (out.usage.input_tokens, out.usage.output_tokens) == (21, 3)
    assert out.finish_reason == "end_turn"
    assert out.raw == anthropic_reply("Red.")


async def test_anthropic_structured_output_uses_a_forced_tool(server: RecordingServer) -> None:
    tool_call = {"type": "tool_use", "id": "t1", "name": "answer", "input": {"colour": "red"}}
    server.reply(anthropic_reply(stop="tool_use", content=[tool_call]))
    tool_call = {**tool_call, "input": {"colour": "red", "count": 2}}
    server.reply(anthropic_reply(stop="tool_use", content=[tool_call]))
    client = ModelClient(ANTHROPIC.load(server), None)

    # The first answer lacks "count": the client must re-ask, and take the second.
    result = await client.generate_json([Message.user("Describe.")], Answer)
    await client.aclose()

    assert result.status is Status.OK and result.value == Answer(colour="red", count=2)
    body = server.requests[0].json()
    assert body["tools"] == [
        {
            "name": "answer",
            "description": body["tools"][0]["description"],
            "input_schema": Answer.model_json_schema(),
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert len(server.requests) == 2


async def test_anthropic_wraps_a_non_object_schema(server: RecordingServer) -> None:
    tool_call = {"type": "tool_use", "id": "t1", "name": "answer", "input": {"value": [1, 2]}}
    server.reply(anthropic_reply(stop="tool_use", content=[tool_call]))
    model = ANTHROPIC.load(server)
    schema = {"type": "array", "items": {"type": "integer"}}
    out = await model.generate([Message.user("Numbers?")], GenerationConfig(json_schema=schema))
    await model.aclose()

    input_schema = server.last.json()["tools"][0]["input_schema"]
    assert input_schema == {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
    }
    assert json.loads(out.text) == [1, 2]


async def test_anthropic_refusal_is_a_refused_status(server: RecordingServer) -> None:
    server.reply(anthropic_reply("", stop="refusal"))
    model = ANTHROPIC.load(server)
    out = await model.generate([Message.user("...")], GenerationConfig())
    await model.aclose()
    assert out.status is Status.REFUSED and out.reason and "refusal" in out.reason


async def test_anthropic_converts_unsupported_image_formats_to_png(server: RecordingServer) -> None:
    server.reply(anthropic_reply())
    model = ANTHROPIC.load(server)
    await model.generate(
        [Message.user(ImagePart.from_bytes(solid_image((200, 30, 40), (3, 2), "BMP")))],
        GenerationConfig(),
    )
    await model.aclose()

    source = server.last.json()["messages"][0]["content"][0]["source"]
    assert source["media_type"] == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(source["data"]))) as image:
        assert image.format == "PNG" and image.size == (3, 2)
        assert image.convert("RGB").getpixel((1, 1)) == (200, 30, 40)


async def test_anthropic_spend_limit_is_not_retried(server: RecordingServer) -> None:
    body = anthropic_error(429, "rate_limit_error", "You reached your spend limit.")
    body["error"]["details"] = {"error_code": "enforced_spend_limit_reached"}
    server.reply(body, status=429)
    model = ANTHROPIC.load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert caught.value.kind is ErrorKind.FATAL and caught.value.status_code == 402


# --- Google ----------------------------------------------------------------------------------


async def test_google_request_shape_and_reply(server: RecordingServer) -> None:
    reply = gemini_reply()
    reply["candidates"][0]["content"]["parts"] = [
        {"text": "thinking...", "thought": True},
        {"text": "Red"},
        {"text": "."},
    ]
    reply["usageMetadata"]["thoughtsTokenCount"] = 6
    server.reply(reply)
    model = load_chat_model(f"google/gemini-x?base_url={server.url}")
    config = GenerationConfig(temperature=0.3, max_tokens=77, top_p=0.9, stop=("END",), seed=5)
    out = await model.generate(_conversation(PNG, JPEG), config)
    await model.aclose()

    sent = server.last
    # The key goes in a header; a ?key= in the URL would leak into logs and error messages.
    assert sent.path == "/v1beta/models/gemini-x:generateContent"
    assert sent.headers["x-goog-api-key"] == SECRET
    assert SECRET not in sent.path and "authorization" not in sent.headers
    body = sent.json()
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    text, png, jpeg = body["contents"][0]["parts"]
    assert text == {"text": "What is this?"}
    assert png["inline_data"]["mime_type"] == "image/png"
    assert base64.b64decode(png["inline_data"]["data"]) == PNG
    assert jpeg["inline_data"]["mime_type"] == "image/jpeg"
    assert base64.b64decode(jpeg["inline_data"]["data"]) == JPEG
    assert body["generationConfig"] == {
        "temperature": 0.3,
        "maxOutputTokens": 77,
        "topP": 0.9,
        "seed": 5,
        "stopSequences": ["END"],
    }

    assert out.status is Status.OK and out.text == "Red."  # the thought part is not the answer
    assert (out.usage.input_tokens, out.usage.output_tokens) == (30, 4 + 6)
    assert out.finish_reason == "STOP"


async def test_google_structured_output_sends_a_json_schema(server: RecordingServer) -> None:
    server.reply(gemini_reply('{"colour": "red", "count": 2}'))
    client = ModelClient(GOOGLE.load(server), None)
    result = await client.generate_json([Message.user("Describe.")], Answer)
    await client.aclose()

    assert result.value == Answer(colour="red", count=2)
    generation = server.last.json()["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseJsonSchema"] == Answer.model_json_schema()


class Inner(BaseModel):
    name: str
    size: int | None = None


class Outer(BaseModel):
    items: list[Inner]


async def test_google_falls_back_to_response_schema_and_remembers(
    server: RecordingServer,
) -> None:
    unknown = (
        'Invalid JSON payload received. Unknown name "responseJsonSchema" at generation_config'
    )
    server.reply(google_error(400, "INVALID_ARGUMENT", unknown), status=400)
    server.reply(gemini_reply('{"items": []}'))
    server.reply(gemini_reply('{"items": []}'))
    model = GOOGLE.load(server)
    config = GenerationConfig(json_schema=Outer.model_json_schema())
    first = await model.generate([Message.user("a")], config)
    second = await model.generate([Message.user("b")], config)
    await model.aclose()

    assert first.ok and second.ok
    assert len(server.requests) == 3  # one refusal of the field, then straight to the fallback
    retried = server.requests[1].json()["generationConfig"]
    assert "responseJsonSchema" not in retried
    # The OpenAPI subset has no $ref/$defs/default: references are inlined, Optional is nullable.
    assert retried["responseSchema"] == {
        "type": "object",
        "title": "Outer",
        "properties": {
            "items": {
                "type": "array",
                "title": "Items",
                "items": {
                    "type": "object",
                    "title": "Inner",
                    "properties": {
                        "name": {"type": "string", "title": "Name"},
                        "size": {"type": "integer", "nullable": True},
                    },
                    "required": ["name"],
                },
            }
        },
        "required": ["items"],
    }
    assert server.requests[2].json()["generationConfig"] == retried


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (gemini_reply("", finish="SAFETY"), "SAFETY"),
        (gemini_reply("", finish="PROHIBITED_CONTENT"), "PROHIBITED_CONTENT"),
        ({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {}}, "blocked"),
    ],
)
async def test_google_filtered_answers_are_refusals(
    server: RecordingServer, reply: dict[str, Any], why: str
) -> None:
    server.reply(reply)
    model = GOOGLE.load(server)
    out = await model.generate([Message.user("...")], GenerationConfig())
    await model.aclose()
    assert out.status is Status.REFUSED and out.reason and why in out.reason


async def test_google_reads_gemini_api_key_as_fallback(
    server: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key-456")
    server.reply(gemini_reply())
    model = GOOGLE.load(server)
    await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert server.last.headers["x-goog-api-key"] == "gemini-key-456"


async def test_google_rate_limit_waits_for_retry_info(server: RecordingServer) -> None:
    # Gemini says "quota" in every 429 and puts the wait in the body, not in Retry-After.
    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}
    message = "You exceeded your current quota, please check your plan and billing details."
    server.reply(google_error(429, "RESOURCE_EXHAUSTED", message, [retry]), status=429)
    model = GOOGLE.load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert caught.value.kind is ErrorKind.TRANSIENT and caught.value.retry_after == 3.0


async def test_google_daily_quota_is_fatal(server: RecordingServer) -> None:
    failure = {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}],
    }
    message = "You exceeded your current quota."
    server.reply(google_error(429, "RESOURCE_EXHAUSTED", message, [failure]), status=429)
    model = GOOGLE.load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert caught.value.kind is ErrorKind.FATAL and caught.value.status_code == 402


async def test_google_invalid_key_stops_the_run_without_leaking_it(
    server: RecordingServer,
) -> None:
    # Gemini reports a bad key as 400 and may echo it in a debug detail.
    details = [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"},
        {"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": f"Invalid key {SECRET}"},
    ]
    message = f"API key not valid. Please pass a valid API key. ({SECRET})"
    server.reply(google_error(400, "INVALID_ARGUMENT", message, details), status=400)
    client = ModelClient(GOOGLE.load(server), None)
    with pytest.raises(RunAborted) as caught:
        await client.generate([Message.user("hi")])
    await client.aclose()
    assert "GOOGLE_API_KEY" in str(caught.value) and SECRET not in str(caught.value)


# --- both providers ---------------------------------------------------------------------------


@PROVIDERS
async def test_missing_key_for_the_default_endpoint_names_the_variable(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(provider.key_env)
    with pytest.raises(ProviderError) as caught:
        load_chat_model(f"{provider.name}/m")
    assert caught.value.kind is ErrorKind.FATAL and provider.key_env in str(caught.value)


@PROVIDERS
async def test_custom_base_url_runs_without_a_key(
    provider: Provider, server: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(provider.key_env)
    server.reply(provider.ok("hi"))
    model = provider.load(server)
    out = await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert out.text == "hi"
    assert not {"x-api-key", "x-goog-api-key", "authorization"} & set(server.last.headers)


@PROVIDERS
def test_cache_identity_has_no_secrets_or_timeouts(
    provider: Provider, server: RecordingServer
) -> None:
    model = provider.load(server, timeout=5)
    assert model.cache_identity() == {
        "provider": provider.name,
        "model": "test-model",
        "base_url": server.url,
    }
    assert model.endpoint == server.url


@PROVIDERS
@pytest.mark.parametrize(
    ("status", "headers", "kind", "retry_after"),
    [
        (429, {"retry-after": "2"}, ErrorKind.TRANSIENT, 2.0),
        (529, {}, ErrorKind.TRANSIENT, None),
        (503, {}, ErrorKind.TRANSIENT, None),
        (401, {}, ErrorKind.FATAL, None),
        (404, {}, ErrorKind.FATAL, None),
    ],
)
async def test_http_errors_are_classified_and_redacted(
    provider: Provider,
    server: RecordingServer,
    status: int,
    headers: dict[str, str],
    kind: ErrorKind,
    retry_after: float | None,
) -> None:
    # A server that echoes the key in its error must not get it into our messages.
    server.reply(provider.error(status, "some_error", f"bad thing; key={SECRET}"), status, headers)
    model = provider.load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()

    exc = caught.value
    assert (exc.kind, exc.status_code, exc.retry_after) == (kind, status, retry_after)
    assert SECRET not in str(exc) and SECRET not in repr(exc.args)
    assert "***" in str(exc)
    if status == 401:
        assert exc.hint and provider.key_env in exc.hint


@PROVIDERS
async def test_raw_reply_never_holds_the_key(provider: Provider, server: RecordingServer) -> None:
    reply = provider.ok("fine")
    reply["echo"] = {"headers": {"key": SECRET}}  # a proxy that echoes the request
    server.reply(reply)
    model = provider.load(server)
    out = await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert out.text == "fine" and SECRET not in json.dumps(out.raw)


def _text_in_store(store: Store) -> str:
    """Every text value of every table, for leak checks."""
    chunks: list[str] = []
    with store.engine.connect() as conn:
        for table in tables.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, String | Text)]
            if columns:
                for row in conn.execute(select(*columns)):
                    chunks.extend(str(v) for v in row if v is not None)
    return "\n".join(chunks)


@PROVIDERS
async def test_client_retries_then_caches_without_storing_the_key(
    provider: Provider, server: RecordingServer, tmp_path: Any
) -> None:
    server.reply(provider.error(429, "rate_limit_error", f"slow down {SECRET}"), 429)
    server.reply(provider.ok(f"answer {SECRET}"))  # echoed key must not reach the store either
    store = Store.open(str(tmp_path / "s.db"))
    client = ModelClient(provider.load(server), store)
    client.retry = RetryPolicy(base_delay=0.01)
    messages = [Message.system("sys"), Message.user("q", ImagePart.from_bytes(PNG))]

    first = await client.generate(messages)
    assert first.status is Status.OK and first.attempts == 2
    assert len(server.requests) == 2
    second = await client.generate(messages)
    await client.aclose()

    assert second.cached and second.attempts == 0 and second.text == first.text
    assert len(server.requests) == 2  # the second call made no request
    stored = _text_in_store(store)
    assert "answer" in stored  # the scan does see the cached output
    assert SECRET not in stored


# --- OpenAI-compatible: the max_tokens cap ---------------------------------------------------


def openai_reply(text: str = "Red.") -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 2},
    }


async def test_openai_max_tokens_option_caps_every_request(server: RecordingServer) -> None:
    server.reply(openai_reply())
    server.reply(openai_reply())
    capped = load_chat_model(f"openai/m?base_url={server.url}&max_tokens=64")
    plain = load_chat_model(f"openai/m?base_url={server.url}")
    await capped.generate([Message.user("hi")], GenerationConfig(max_tokens=500))
    await capped.generate([Message.user("hi")], GenerationConfig(max_tokens=10))
    assert [r.json()["max_tokens"] for r in server.requests] == [64, 10]
    # A cap can cut replies short, so capped and uncapped outputs never share a cache entry.
    assert capped.cache_identity() != plain.cache_identity()
    assert "max_tokens_cap" not in plain.cache_identity()
    await capped.aclose()
    await plain.aclose()


def test_openai_max_tokens_option_must_be_a_number() -> None:
    # Refused by the registry's option check, before the model is built.
    with pytest.raises(RegistryError, match=r"option max_tokens='lots': expected a whole number"):
        load_chat_model("openai/m?base_url=http://127.0.0.1:9/v1&max_tokens=lots")


async def test_openai_quota_429_stops_the_run(server: RecordingServer) -> None:
    quota = {"error": {"message": "You exceeded your current quota.", "code": "insufficient_quota"}}
    server.reply(quota, status=429)
    model = load_chat_model(f"openai/m?base_url={server.url}")
    client = ModelClient(model, None, retry=RetryPolicy(max_retries=3, base_delay=0.0))
    with pytest.raises(RunAborted, match="quota"):
        await client.generate([Message.user("hi")])
    assert len(server.requests) == 1  # not retried: waiting does not refill an account
    await client.aclose()
