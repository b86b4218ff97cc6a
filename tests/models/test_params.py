"""``param.<field>`` options: a param may not replace a field the provider builds or checks
itself, nor carry a credential into the model's name.

The reserved fields are checked against what each client really sends: every field of a real
request (all settings and a structured-output schema given), read off a local HTTP server,
must be refused as a param, so a field added to a client later cannot be overridden unnoticed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from http_fixture import RecordingServer

from lvlmbench.models import (
    GenerationSettings,
    ProviderError,
    RegistryError,
    load_chat_model,
    model_identity,
    resolve_spec,
    spec_with_settings,
)
from lvlmbench.types import GenerationConfig, Message

SECRET = "sk-live-Q7xPARAMSECRET42"
FULL_CONFIG = GenerationConfig(
    temperature=0.3,
    max_tokens=77,
    top_p=0.9,
    seed=5,
    stop=("END",),
    json_schema={"type": "object", "properties": {"a": {"type": "string"}}},
)


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(var, "sk-test-key")


async def _sent_bodies(spec: str, server: RecordingServer) -> list[dict[str, Any]]:
    """Every body ``spec``'s client sends for one call with every setting given (the server
    answers none, so each structured-output fallback is tried too)."""
    model = load_chat_model(spec)
    messages = [Message.system("Be brief."), Message.user("Which?")]
    with pytest.raises(ProviderError):
        await model.generate(messages, FULL_CONFIG)
    await model.aclose()
    return [r.json() for r in server.requests if r.method == "POST"]


def _refused(spec: str, field: str, value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    with pytest.raises(RegistryError) as refused:
        resolve_spec(spec_with_settings(spec, GenerationSettings(params={field: text})))
    return str(refused.value)


async def test_openai_refuses_every_field_its_client_sends(server: RecordingServer) -> None:
    spec = f"openai/m?base_url={server.url}/v1"
    sent = {key for body in await _sent_bodies(spec, server) for key in body}
    assert {"model", "messages", "max_tokens", "temperature", "response_format"} <= sent
    for field in sent:
        assert "would replace a request field that openai/ builds" in _refused(spec, field, 1)
    # The fields the issue named, each with what to use instead.
    assert "--epochs" in _refused(spec, "n", 5)
    assert "reads each reply whole" in _refused(spec, "stream", True)
    assert "--max-tokens" in _refused(spec, "max_tokens", -5)
    assert "--max-tokens" in _refused(spec, "max_completion_tokens", 9)
    assert "--system-prompt" in _refused(spec, "messages", [])


async def test_anthropic_refuses_every_field_its_client_sends(server: RecordingServer) -> None:
    spec = f"anthropic/c?base_url={server.url}"
    sent = {key for body in await _sent_bodies(spec, server) for key in body}
    assert {"system", "tools", "tool_choice", "stop_sequences", "max_tokens"} <= sent
    for field in [*sent, "stream"]:
        assert "would replace a request field that anthropic/" in _refused(spec, field, 1)
    assert "--system-prompt" in _refused(spec, "system", "Be someone else.")


async def test_google_refuses_every_generation_config_field_its_client_sends(
    server: RecordingServer,
) -> None:
    spec = f"google/g?base_url={server.url}&thinking_budget=0"
    bodies = await _sent_bodies(spec, server)
    sent = {key for body in bodies for key in body["generationConfig"]}
    assert {"maxOutputTokens", "responseMimeType", "thinkingConfig"} <= sent
    budget = {"thinkingBudget": 64}
    for field in sent:
        value = budget if field == "thinkingConfig" else 1
        assert "would replace a request field that google/" in _refused(spec, field, value)
    # Google reads snake_case names too; a thinkingConfig without a budget is Google's own.
    assert "--max-tokens" in _refused(spec, "max_output_tokens", 5)
    assert "thinking_budget=" in _refused(spec, "thinkingConfig", {"thinking_budget": 5})
    assert "--epochs" in _refused(spec, "candidateCount", 4)
    taken = spec_with_settings(spec, GenerationSettings(params={"thinkingConfig": '{"a":1}'}))
    assert "param.thinkingConfig=" in model_identity(taken)


@pytest.mark.parametrize(
    ("spec", "field", "value"),
    [
        ("openai/m?base_url=http://127.0.0.1:9/v1", "reasoning_effort", "high"),
        ("openai/m?base_url=http://127.0.0.1:9/v1", "logprobs", "true"),
        ("anthropic/c?base_url=http://127.0.0.1:9", "thinking", '{"type":"enabled"}'),
        ("google/g?base_url=http://127.0.0.1:9", "responseLogprobs", "true"),
    ],
)
def test_provider_fields_the_client_does_not_build_pass_through(
    spec: str, field: str, value: str
) -> None:
    identity = model_identity(f"{spec}&param.{field}={value}")
    assert f"param.{field}=" in identity


@pytest.mark.parametrize("provider", ["hf/org/model", "baseline/random"])
def test_providers_without_a_request_body_take_no_params(provider: str) -> None:
    with pytest.raises(RegistryError, match="takes no params"):
        resolve_spec(f"{provider}?param.reasoning_effort=high")


CREDENTIAL_NAMES = [
    "api_key",
    "x-api-key",
    "access_token",
    "authorization",
    "Authorization",
    "apiKey",
    "APIKEY",
    "client_secret",
    "password",
    "auth",
    "refresh-token",
]


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
@pytest.mark.parametrize(
    ("spec", "instead"),
    [
        ("openai/m?base_url=http://127.0.0.1:9/v1", "api_key_env="),
        ("anthropic/c", "ANTHROPIC_API_KEY"),
        ("google/g", "GOOGLE_API_KEY"),
        ("hf/org/model", "HF_TOKEN"),
    ],
)
def test_credential_looking_params_are_refused_without_their_value(
    name: str, spec: str, instead: str
) -> None:
    joined = "&" if "?" in spec else "?"
    for typed in (f"{spec}{joined}param.{name}={SECRET}", f"{spec}{joined}{name}={SECRET}"):
        with pytest.raises(RegistryError) as refused:
            resolve_spec(typed)
        message = str(refused.value)
        assert "looks like a credential" in message and instead in message
        assert SECRET not in message and SECRET not in repr(refused.value)


def test_a_credential_is_not_shown_by_any_other_message_either() -> None:
    # An unknown option or a conflict with a flag would quote the spec: its key is masked.
    with pytest.raises(RegistryError) as typo:
        resolve_spec(f"openai/m?temperatur=1&param.api_key={SECRET}")
    with pytest.raises(ValueError) as conflict:
        spec_with_settings(
            f"openai/m?param.api_key={SECRET}", GenerationSettings(params={"api_key": "other"})
        )
    with pytest.raises(RegistryError) as malformed:
        resolve_spec(f"openai/m?param.token={SECRET}&param.token={SECRET}")
    for refused in (typo, conflict, malformed):
        assert SECRET not in str(refused.value), refused.value


@pytest.mark.parametrize(
    "name", ["max_tokens", "max_token", "num_token", "top_k", "keywords", "tokenizer", "monkey"]
)
def test_names_that_only_resemble_credentials_are_not_refused_as_credentials(name: str) -> None:
    try:
        resolve_spec(f"anthropic/c?param.{name}=1")
    except RegistryError as exc:
        assert "credential" not in str(exc)
