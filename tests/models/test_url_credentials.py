"""Credentials written into a ``base_url`` (``http://user:password@host/v1``): sent as HTTP basic
auth, never shown, stored or keyed on. They used to end in aiohttp's ValueError ("Cannot combine
AUTHORIZATION header with ... credentials encoded in URL") whenever a key was set too."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from http_fixture import RecordingServer

from lvlmbench.images import ImageRequest, load_image_model
from lvlmbench.models import (
    ModelClient,
    ProviderError,
    RegistryError,
    load_chat_model,
    model_identity,
)
from lvlmbench.types import GenerationConfig, Message

PASSWORD = "pw-Zq7#long"  # '#' percent-encoded in the URL, as a URL requires
WRITTEN = "pw-Zq7%23long"
BASIC = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(var, "sk-also-set-0123456789")  # beside the URL's credentials


def _with_credentials(url: str, password: str = WRITTEN) -> str:
    return url.replace("http://", f"http://alice:{password}@")


OPENAI_REPLY = {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": 3}}
CHAT: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "openai": ("openai/m?base_url={url}/v1", "/v1/chat/completions", OPENAI_REPLY, ""),
    "anthropic": (
        "anthropic/m?base_url={url}",
        "/v1/messages",
        {"content": [{"type": "text", "text": "ok"}], "usage": {}},
        "x-api-key",
    ),
    "google": (
        "google/m?base_url={url}",
        "/v1beta/models/m:generateContent",
        {"candidates": [{"content": {"parts": [{"text": "ok"}]}}]},
        "x-goog-api-key",
    ),
}


def _shows_no_credentials(*texts: str) -> None:
    for text in texts:
        assert PASSWORD not in text and WRITTEN not in text and "alice" not in text, text
        assert BASIC.split()[1] not in text


@pytest.mark.parametrize("provider", sorted(CHAT))
async def test_chat_providers_send_url_credentials_as_basic_auth(
    provider: str, server: RecordingServer
) -> None:
    spec, path, reply, key_header = CHAT[provider]
    server.reply(reply)
    model = load_chat_model(spec.format(url=_with_credentials(server.url)))
    output = await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert output.text == "ok"
    sent = server.last
    assert sent.path.startswith(path)
    assert sent.headers["authorization"] == BASIC
    if key_header:  # the provider's own key header goes along
        assert sent.headers[key_header] == "sk-also-set-0123456789"
    identity = json.dumps(model.cache_identity())
    _shows_no_credentials(model.spec, model.endpoint, identity)
    assert server.url in model.spec and server.url in identity


async def test_the_image_provider_sends_url_credentials_as_basic_auth(
    server: RecordingServer,
) -> None:
    server.reply({"error": {"message": "no such model"}}, 404)
    model = load_image_model(f"openai/gpt-image-1?base_url={_with_credentials(server.url)}/v1")
    with pytest.raises(ProviderError) as caught:
        await model.generate(ImageRequest(prompt="a square", width=8, height=8))
    await model.aclose()
    assert server.last.path == "/v1/images/generations"
    assert server.last.headers["authorization"] == BASIC
    _shows_no_credentials(model.spec, model.endpoint, json.dumps(model.cache_identity()))
    _shows_no_credentials(str(caught.value))


async def test_a_rejected_password_is_named_without_being_shown(server: RecordingServer) -> None:
    server.reply({"error": {"message": f"bad credentials alice:{PASSWORD}"}}, 401)
    model = load_chat_model(f"openai/m?base_url={_with_credentials(server.url)}/v1")
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message.user("hi")], GenerationConfig())
    await model.aclose()
    assert caught.value.hint == "check the user and password written into base_url"
    assert "HTTP 401" in str(caught.value)
    assert PASSWORD not in str(caught.value) and WRITTEN not in str(caught.value)


def test_the_identity_and_cache_key_do_not_depend_on_the_password() -> None:
    url = "http://127.0.0.1:9/v1"
    specs = [f"openai/m?base_url={_with_credentials(url, pw)}" for pw in ("one-pass", "two-pass")]
    identities = {model_identity(spec) for spec in specs}
    assert identities == {f"openai/m?base_url={url}"}
    messages = [Message.user("hi")]
    keys = {
        ModelClient(load_chat_model(s), None).cache_key(messages, GenerationConfig()) for s in specs
    }
    assert len(keys) == 1


def test_a_bad_spec_quotes_itself_without_the_password() -> None:
    spec = f"openai/m?base_url={_with_credentials('http://h/v1')}&tiemout=3"
    with pytest.raises(RegistryError) as caught:
        load_chat_model(spec)
    assert "unknown option 'tiemout'" in str(caught.value)
    assert "alice:***@h" in str(caught.value)
    _shows_no_credentials(str(caught.value).replace("alice:***", ""))
