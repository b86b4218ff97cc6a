"""The openai provider against a real OpenAI-compatible server (llama.cpp + Gemma 3 270M)."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.store import Store
from lvlmbench.store import _schema as tables
from lvlmbench.types import GenerationConfig, Message, Status

pytestmark = pytest.mark.integration


class Colour(BaseModel):
    colour: Literal["blue", "red", "green", "grey"] = Field(description="the sky's colour")
    sure: bool


class Bounded(BaseModel):
    confidence: int = Field(ge=0, le=10)


async def test_plain_generation_and_cache(llama_server, tmp_path):
    store = Store.open(str(tmp_path / "s.db"))
    model = load_chat_model(f"openai/{llama_server.model}", base_url=llama_server.base_url)
    client = ModelClient(model, store)
    before = llama_server.chat_requests()
    messages = [Message.system("You are terse."), Message.user("Name one fruit.")]
    first = await client.generate(messages, GenerationConfig(max_tokens=16))
    assert first.status is Status.OK, first.reason
    assert first.text.strip()
    assert 0 < first.usage.output_tokens <= 16 and first.usage.input_tokens > 0
    assert llama_server.chat_requests() == before + 1
    second = await client.generate(messages, GenerationConfig(max_tokens=16))
    assert second.cached and second.text == first.text
    assert llama_server.chat_requests() == before + 1  # served from the store, no HTTP request
    assert store.count(tables.cache) == 1
    await client.aclose()


async def test_schema_valid_json_through_the_fallback(llama_server, tmp_path):
    store = Store.open(str(tmp_path / "s.db"))
    model = load_chat_model(f"openai/{llama_server.model}", base_url=llama_server.base_url)
    client = ModelClient(model, store)
    result = await client.generate_json(
        [Message.user("What colour is the sky on a clear day? Answer in JSON.")],
        Colour,
        GenerationConfig(max_tokens=64),
    )
    # llama.cpp refuses json_schema with HTTP 500; the provider must fall back to its
    # json_object + schema extension, whose grammar makes the output schema-valid.
    assert result.status is Status.OK, result.reason
    assert result.value is not None and result.value.colour in ("blue", "red", "green", "grey")
    assert result.attempts == 1
    json.loads(result.output.text)
    assert model._json_modes[0] == "json_object"  # the refused json_schema mode is remembered
    await client.aclose()


async def test_schema_violations_are_recorded_never_guessed(llama_server, tmp_path):
    # The grammar enforces types but not numeric bounds; whatever comes back, the result is
    # either a valid value or an unparseable record with the reason, never a clamped guess.
    model = load_chat_model(f"openai/{llama_server.model}", base_url=llama_server.base_url)
    client = ModelClient(model, Store.open(str(tmp_path / "s.db")))
    result = await client.generate_json(
        [Message.user("How sure are you, 0-10? JSON.")], Bounded, GenerationConfig(max_tokens=32)
    )
    if result.status is Status.OK:
        assert result.value is not None and 0 <= result.value.confidence <= 10
    else:
        assert result.status is Status.UNPARSEABLE and result.value is None
        assert "confidence" in (result.reason or "")
    await client.aclose()


def test_models_check_cli(llama_server):
    result = CliRunner().invoke(
        app,
        [
            "models",
            "check",
            f"openai/{llama_server.model}",
            "--base-url",
            llama_server.base_url,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["status"] == "ok" and report["reply"]
    assert report["output_tokens"] > 0 and report["latency_s"] > 0
