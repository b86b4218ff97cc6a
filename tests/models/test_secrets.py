"""The secrets registry: what providers register, and how outputs are masked."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from http_fixture import RecordingServer
from PIL import Image

from lvlmbench.images import ImageClient, ImageRequest, load_image_model
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.models import _secrets as secrets
from lvlmbench.models._client import redact_output
from lvlmbench.models._secrets import (
    read_secret,
    redact_data,
    redact_text,
    register_secret,
    registered_secrets,
)
from lvlmbench.store import Store
from lvlmbench.types import Message, ModelOutput, Status


def _files_holding(root: Path, needle: bytes) -> list[Path]:
    """Files under ``root`` (the SQLite file, its journals, the images dir) holding ``needle``."""
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_values_are_masked_in_text_and_nested_json() -> None:
    register_secret("alpha-secret-0001")
    register_secret("alpha-secret-0001-longer")  # contains the first: masked whole
    text = "k=alpha-secret-0001-longer and alpha-secret-0001."
    assert redact_text(text) == "k=*** and ***."
    body = {"a": [1, {"alpha-secret-0001": "x alpha-secret-0001"}], "b": None, "c": 2.5}
    assert redact_data(body) == {"a": [1, {"***": "x ***"}], "b": None, "c": 2.5}
    clean = {"a": ["nothing here"], "n": 3}
    assert redact_data(clean) is clean  # untouched bodies are not copied


def test_empty_values_are_ignored_and_short_ones_masked_only_as_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("_secrets", "_short", "_short_forms", "_short_words"):  # forgotten afterwards
        monkeypatch.setattr(secrets, name, getattr(secrets, name))
    before = registered_secrets()
    register_secret("")
    register_secret(None)
    assert registered_secrets() == before
    register_secret("abc1234")  # 7 characters: masked everywhere, it would corrupt answers
    assert "abc1234" in registered_secrets()
    assert redact_text("abc1234") == "abc1234"
    assert redact_text("sent Bearer abc1234") == "sent Bearer ***"


def test_output_fields_are_masked() -> None:
    register_secret("beta-secret-0002")
    output = ModelOutput(
        text="echo beta-secret-0002",
        reason="beta-secret-0002 refused",
        raw={"headers": {"authorization": "Bearer beta-secret-0002"}},
        status=Status.REFUSED,
    )
    masked = redact_output(output)
    assert masked.text == "echo ***" and masked.reason == "*** refused"
    assert masked.raw == {"headers": {"authorization": "Bearer ***"}}
    plain = ModelOutput(text="fine", raw={"x": 1})
    assert redact_output(plain) is plain


@pytest.mark.parametrize(
    ("spec", "env"),
    [
        ("openai/m?base_url=http://127.0.0.1:9/v1&api_key_env=K1", "K1"),
        ("anthropic/m?base_url=http://127.0.0.1:9&api_key_env=K1", "K1"),
        ("google/m?base_url=http://127.0.0.1:9&api_key_env=K1", "K1"),
    ],
)
def test_every_http_provider_registers_the_key_it_reads(
    spec: str, env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = f"{spec.split('/')[0]}-key-value-42"
    monkeypatch.setenv(env, value)
    load_chat_model(spec)
    assert value in registered_secrets()
    assert read_secret("LVLMBENCH_TEST_UNSET_VARIABLE") == ""


async def test_a_key_echoed_into_a_chat_reply_is_masked_before_caching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_KEY", "gamma-secret-0003")
    store = Store.open(str(tmp_path / "s.db"))
    with RecordingServer() as server:
        server.reply(
            {
                "choices": [{"message": {"content": "hi gamma-secret-0003"}}],
                "echo": {"authorization": "Bearer gamma-secret-0003"},
            }
        )
        model = load_chat_model(f"openai/m?base_url={server.url}/v1&api_key_env=ECHO_KEY")
        client = ModelClient(model, store)
        output = await client.generate([Message.user("hello")])
        await client.aclose()
        assert server.last.headers["authorization"] == "Bearer gamma-secret-0003"
    assert output.text == "hi ***" and output.raw is not None
    assert output.raw["echo"] == {"authorization": "Bearer ***"}
    cached = await ModelClient(model, store).generate([Message.user("hello")])
    assert cached.cached and cached.text == "hi ***"
    store.engine.dispose()
    assert _files_holding(tmp_path, b"gamma-secret-0003") == []


async def test_a_key_echoed_into_an_image_reply_is_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IMG_KEY", "delta-secret-0004")
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="PNG")
    item = {
        "b64_json": base64.b64encode(buffer.getvalue()).decode(),
        "revised_prompt": "drawn for delta-secret-0004",
    }
    store = Store.open(str(tmp_path / "s.db"))
    with RecordingServer() as server:
        server.reply({"created": 1, "data": [item]})
        model = load_image_model(f"openai/dall-e-3?base_url={server.url}&api_key_env=IMG_KEY")
        client = ImageClient(model, store)
        output = await client.generate(ImageRequest(prompt="a square", width=8, height=8))
        await client.aclose()
    assert output.ok and output.revised_prompt == "drawn for ***"
    store.engine.dispose()
    assert _files_holding(tmp_path, b"delta-secret-0004") == []
