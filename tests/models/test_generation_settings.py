"""Generation settings carried by a spec (``?temperature=…&system=…&param.x=…``): what each
provider sends for them over a real local socket, how they enter a model's identity, and the
seeded stratified subset behind ``evaluate --limit``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from http_fixture import RecordingServer

from lvlmbench.models import (
    GenerationSettings,
    ModelClient,
    RegistryError,
    generation_options,
    load_chat_model,
    model_identity,
    spec_with_settings,
)
from lvlmbench.runner import item_stratum, stratified_subset
from lvlmbench.types import BenchmarkItem, GenerationConfig, Message

THINKING = '{"type": "enabled", "budget_tokens": 1024}'


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("GOOGLE_API_KEY", "k")


def _settings_spec(base: str) -> str:
    settings = GenerationSettings(
        temperature=0.4, top_p=0.8, max_tokens=99, system="Reply in French.",
        params={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )  # fmt: skip
    return spec_with_settings(base, settings)


async def _ask(spec: str, config: GenerationConfig) -> None:
    client = ModelClient(load_chat_model(spec), None)
    try:
        await client.generate([Message.system("Be brief."), Message.user("Colour?")], config)
    finally:
        await client.aclose()


async def test_anthropic_gets_settings_and_params_in_its_body(server: RecordingServer) -> None:
    server.reply(
        {
            "type": "message",
            "content": [{"type": "text", "text": "Rouge."}],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 5, "output_tokens": 99},
        }
    )
    await _ask(_settings_spec(f"anthropic/claude-x?base_url={server.url}"), GenerationConfig())
    body = server.last.json()
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.4, 0.8, 99)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    # Ours first, the caller's own system turn kept after it.
    assert body["system"].startswith("Reply in French.") and body["system"].endswith("Be brief.")


async def test_google_gets_params_in_its_generation_config(server: RecordingServer) -> None:
    server.reply(
        {
            "candidates": [{"content": {"parts": [{"text": "Rouge"}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1},
        }
    )
    spec = f"google/gemini-x?base_url={server.url}&param.thinkingConfig={quote(THINKING)}"
    await _ask(spec, GenerationConfig(max_tokens=512))
    config = server.last.json()["generationConfig"]
    assert config["thinkingConfig"] == {"type": "enabled", "budget_tokens": 1024}
    assert config["maxOutputTokens"] == 512  # no max_tokens setting: the caller's own


async def test_a_judge_config_keeps_its_budget_unless_the_user_sets_one(
    server: RecordingServer,
) -> None:
    completion = {
        "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}],
        "usage": {},
    }
    for _ in range(2):
        server.reply(completion)
    base = f"openai/j?base_url={server.url}/v1"
    await _ask(base, GenerationConfig(max_tokens=1024))
    await _ask(f"{base}&max_tokens=64&seed=9", GenerationConfig(max_tokens=1024))
    first, second = (r.json() for r in server.requests)
    assert first["max_tokens"] == 1024 and "seed" not in first
    assert second["max_tokens"] == 64 and second["seed"] == 9


def test_identity_lists_settings_not_at_default_with_the_prompt_as_a_digest() -> None:
    base = "openai/m?base_url=http://127.0.0.1:8000/v1"
    assert model_identity(f"{base}&temperature=0") == model_identity(base)
    spec = spec_with_settings(base, GenerationSettings(temperature=0.7, system="Be terse."))
    identity = model_identity(spec)
    assert "temperature=0.7" in identity and "Be terse" not in identity
    assert model_identity(identity) == identity  # typed back, it names the same rows
    with pytest.raises(RegistryError, match="digest"):
        load_chat_model(identity)  # a digest is not a prompt to send
    assert generation_options(spec)["system"] == "Be terse."
    other = spec_with_settings(base, GenerationSettings(system="Be verbose."))
    assert model_identity(other) != model_identity(spec_with_settings(base, GenerationSettings(
        system="Be terse.")))  # fmt: skip


def test_param_values_are_json_when_they_parse_and_canonical() -> None:
    base = "openai/m?base_url=http://127.0.0.1:8000/v1"
    loose, tight = quote('{ "b": 1, "a": [1, 2] }'), quote('{"a":[1,2],"b":1}')
    spaced = model_identity(f"{base}&param.x={loose}")
    tight = model_identity(f"{base}&param.x={tight}")
    assert spaced == tight
    options = generation_options(f"{base}&param.effort=high&param.k=3&param.s=%223%22")
    assert GenerationSettings.from_options(options).params == {"effort": "high", "k": 3, "s": "3"}
    with pytest.raises(RegistryError, match="unknown option"):
        model_identity(f"{base}&temprature=0.7")


def test_a_spec_and_settings_that_disagree_raise() -> None:
    with pytest.raises(ValueError, match="temperature"):
        spec_with_settings("openai/m?temperature=0.2", GenerationSettings(temperature=0.7))
    same = spec_with_settings("openai/m?temperature=0.7", GenerationSettings(temperature=0.7))
    assert model_identity(same) == "openai/m?temperature=0.7"


def _item(i: int, capability: str, difficulty: str) -> BenchmarkItem:
    return BenchmarkItem(
        id=f"i{i:03d}",
        benchmark="b",
        question="?",
        kind="mc",
        meta={"capability": capability, "difficulty": difficulty},
    )


def test_stratified_subset_is_proportional_stable_and_keeps_small_strata() -> None:
    items = [
        *(_item(i, "count", "easy") for i in range(60)),
        *(_item(100 + i, "count", "hard") for i in range(30)),
        *(_item(200 + i, "colour", "easy") for i in range(8)),
        *(_item(300 + i, "colour", "hard") for i in range(2)),
    ]
    chosen = stratified_subset(items, 20, seed=0)
    assert chosen == stratified_subset(list(reversed(items)), 20, seed=0)  # order-independent
    assert chosen != stratified_subset(items, 20, seed=1)
    strata = Counter(item_stratum(i) for i in items if i.id in chosen)
    assert len(chosen) == 20
    assert strata[("colour", "hard")] >= 1  # a 2 % stratum is not dropped
    assert strata[("count", "easy")] > strata[("count", "hard")] > strata[("colour", "easy")]
    assert stratified_subset(items, 500) == {i.id for i in items}
    with pytest.raises(ValueError):
        stratified_subset(items, 0)


def test_stratified_subset_uses_category_without_capability() -> None:
    items = [
        BenchmarkItem(id=f"x{i}", benchmark="b", question="?", category=c, meta={})
        for i, c in enumerate(["a"] * 9 + ["b"] * 3)
    ]
    picked = Counter(i.category for i in items if i.id in stratified_subset(items, 4))
    assert picked == {"a": 3, "b": 1}
