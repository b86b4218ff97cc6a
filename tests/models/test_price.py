"""``price=IN,OUT`` in a chat spec: parsed and checked like any option, taken by every chat
provider, read by the client, and never part of the identity or the cache key (it is how much a
call costs, not what it answers)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from fakes import ScriptedModel

from lvlmbench.images import IMAGE_PROVIDERS
from lvlmbench.models import (
    ModelClient,
    RegistryError,
    load_chat_model,
    model_identity,
    model_price,
    register_chat_provider,
    resolve_spec,
)
from lvlmbench.models._registry import CHAT_PROVIDERS
from lvlmbench.store import Store
from lvlmbench.types import Message, Usage

LOCAL = "openai/m?base_url=http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "spec",
    [
        LOCAL,
        "anthropic/claude-x?base_url=http://127.0.0.1:9",
        "google/gemini-x?base_url=http://127.0.0.1:9",
        "hf/some/model?device=cpu",
        "baseline/random?seed=3",
    ],
)
def test_every_chat_provider_takes_a_price_outside_its_identity(spec: str) -> None:
    priced = f"{spec}&price=2.5,10"
    assert model_price(priced) == (2.5, 10.0)
    # Without a price: unknown, except for the free baselines (no call, nothing to pay).
    assert model_price(spec) == ((0.0, 0.0) if spec.startswith("baseline/") else None)
    assert model_identity(priced) == model_identity(spec)
    assert "price" not in model_identity(priced)


def test_price_is_not_in_the_cache_key_and_the_client_reads_it() -> None:
    message = [Message.user("Which colour?")]
    plain = ModelClient(load_chat_model(LOCAL), None)
    priced = ModelClient(load_chat_model(f"{LOCAL}&price=0.15,0.6"), None)
    assert priced.spec == plain.spec
    assert priced.call_key(message) == plain.call_key(message)
    assert plain.price_per_mtok is None and plain.cost_of(Usage(input_tokens=5)) is None
    assert priced.price_per_mtok == (0.15, 0.6)
    cost = priced.cost_of(Usage(input_tokens=1_000_000, output_tokens=2_000_000))
    assert cost == pytest.approx(0.15 + 1.2)
    # A price handed to the client wins over the spec's.
    given = ModelClient(load_chat_model(f"{LOCAL}&price=0.15,0.6"), None, price_per_mtok=(1, 1))
    assert given.price_per_mtok == (1, 1)


@pytest.mark.parametrize(
    "value",
    ["abc", "1", "1,2,3", "-1,2", "1,-0.5", "nan,1", "inf,1", "", "1,"],
)
def test_a_malformed_price_names_the_spec_and_the_form(value: str) -> None:
    spec = f"{LOCAL}&price={value}"
    with pytest.raises(RegistryError) as caught:
        resolve_spec(spec)
    message = str(caught.value)
    assert spec in message and "IN,OUT" in message and "at least 0" in message


def test_a_price_is_canonical_and_a_misspelling_is_suggested() -> None:
    assert model_price(f"{LOCAL}&price= 2.5 , 10 ") == (2.5, 10.0)
    assert model_price(f"{LOCAL}&price=0,0") == (0.0, 0.0)
    with pytest.raises(RegistryError, match=r"did you mean 'price'\?.*price=IN,OUT"):
        resolve_spec(f"{LOCAL}&prize=1,2")


def test_image_providers_take_a_price_per_image_not_a_chat_price() -> None:
    # Changed on purpose (generate --budget-usd): text-to-image providers take price=USD per
    # image, one number; a chat price (IN,OUT) on an image spec is refused with that form.
    with pytest.raises(RegistryError, match=r"price='1,2': expected USD_PER_IMAGE"):
        resolve_spec("openai/dall-e-3?price=1,2", IMAGE_PROVIDERS)
    assert resolve_spec("openai/dall-e-3?price=0.04", IMAGE_PROVIDERS) == "openai/dall-e-3"
    with pytest.raises(RegistryError, match="unknown option 'price' for procedural/"):
        resolve_spec("procedural?price=0.04", IMAGE_PROVIDERS)  # free: it takes no price


def test_the_provider_factory_never_sees_the_price() -> None:
    seen: list[Mapping[str, str]] = []

    def factory(name: str, options: Mapping[str, str]) -> ScriptedModel:
        seen.append(dict(options))
        return ScriptedModel(spec=f"pricey/{name}")

    register_chat_provider("pricey", factory, options=CHAT_PROVIDERS["baseline"].options)
    try:
        model = load_chat_model("pricey/m?temperature=0.5&price=3,4")
    finally:
        del CHAT_PROVIDERS["pricey"]
    assert seen == [{"temperature": "0.5"}]
    assert ModelClient(model, None).price_per_mtok == (3.0, 4.0)


async def test_only_paid_calls_cost_cache_hits_cost_nothing(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        model = ScriptedModel()  # every answer: 10 input + 2 output tokens
        client = ModelClient(model, store, price_per_mtok=(1e5, 1e6))
        message = [Message.user("Which colour?")]
        await client.generate(message)
        await client.generate(message)  # the same call: answered from the cache
        await client.generate([Message.user("Which shape?")])
        await client.aclose()
    finally:
        store.close()
    assert len(model.calls) == 2 and client.stats.cache_hits == 1
    assert client.stats.cost_usd == pytest.approx(2 * (10 * 0.1 + 2 * 1.0))
