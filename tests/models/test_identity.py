"""model_identity: one function from a spec to the name its rows are stored under; the option
tables that refuse typos and malformed values; display names that stay short but distinct."""

from __future__ import annotations

import re

import pytest

import lvlmbench.baselines  # noqa: F401  (registers baseline/...)
from lvlmbench.images import image_identity, load_image_model
from lvlmbench.models import (
    ModelSpec,
    RegistryError,
    display_names,
    load_chat_model,
    model_identity,
    parse_spec,
    resolve_model,
)


@pytest.mark.parametrize(
    ("spec", "identity"),
    [
        ("openai/m", "openai/m"),
        ("openai/m?base_url=https://api.openai.com/v1/", "openai/m"),  # the default endpoint
        ("openai/m?timeout=30&api_key_env=MY_KEY&json_mode=none", "openai/m"),
        ("openai/m?base_url=http://h:8001/v1/", "openai/m?base_url=http://h:8001/v1"),
        (
            "openai/m?max_tokens=064&base_url=http://h:8001/v1",
            "openai/m?base_url=http://h:8001/v1&max_tokens=64",
        ),
        ("anthropic/c?base_url=http://proxy:9", "anthropic/c?base_url=http://proxy:9"),
        ("google/g?thinking_budget=0", "google/g?thinking_budget=0"),
        ("hf/org/m?device=cpu&batch_size=4&dtype=auto", "hf/org/m"),
        ("hf/org/m?revision=abc&dtype=float16", "hf/org/m?dtype=float16&revision=abc"),
        ("baseline/random?seed=0", "baseline/random"),
        ("baseline/random?seed=3", "baseline/random?seed=3"),
    ],
)
def test_identity_keeps_only_output_changing_options_off_their_default(
    spec: str, identity: str
) -> None:
    assert model_identity(spec) == identity
    assert model_identity(identity) == identity  # an identity is its own identity


def test_the_loaded_model_is_stored_under_its_identity() -> None:
    spec = "openai/m?base_url=http://127.0.0.1:9/v1/&max_tokens=32&timeout=5"
    model = load_chat_model(spec)
    assert (
        model.spec
        == model_identity(spec)
        == "openai/m?base_url=http://127.0.0.1:9/v1&max_tokens=32"
    )
    assert load_chat_model("baseline/random?seed=2").spec == "baseline/random?seed=2"


def test_environment_endpoint_is_part_of_the_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/")
    assert model_identity("openai/m") == "openai/m?base_url=http://127.0.0.1:8080/v1"
    # An explicit option wins over the environment.
    assert model_identity("openai/m?base_url=http://o:1/v1") == "openai/m?base_url=http://o:1/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "not a url")
    with pytest.raises(RegistryError, match=r"base_url='not a url'.*\(from \$OPENAI_BASE_URL\)"):
        model_identity("openai/m")


@pytest.mark.parametrize(
    "name",
    [
        "llava-7b",
        "reference",
        "reference:openai/m?x=1",
        "human:3",
        "submission/x",
        "metric/rougeL",
        "gpt-4 (0613)",
    ],
)
def test_names_that_are_not_provider_specs_pass_through(name: str) -> None:
    assert model_identity(name) == name


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        (
            "openai/m?base_urll=http://h/v1",
            "unknown option 'base_urll' for openai/ (did you mean 'base_url'?)",
        ),
        (
            "openai/m?bogus=1",
            "unknown option 'bogus' for openai/; valid options: api_key_env, base_url",
        ),
        (
            "openai/m?timeout=abc",
            "option timeout='abc': expected a number of seconds greater than 0",
        ),
        ("openai/m?timeout=-1", "option timeout='-1'"),
        ("openai/m?max_tokens=0", "option max_tokens='0': expected a whole number of at least 1"),
        ("openai/m?max_tokens=", "option max_tokens=''"),
        (
            "openai/m?base_url=ftp://h",
            "option base_url='ftp://h': expected an http:// or https:// URL",
        ),
        ("openai/m?json_mode=yaml", "expected one of json_schema, json_object, none"),
        ("openai/m?timeout=5&timeout=6", "option 'timeout' is given twice"),
        ("openai/m?timeout", "options must be key=value pairs"),
        ("hf/m?trust_remote_code=maybe", "expected true or false"),
        ("hf/m?base_url=http://h", "unknown option 'base_url' for hf/"),
        ("baseline/random?seed=x", "option seed='x': expected a whole number"),
        ("google/g?thinking_budget=-1", "option thinking_budget='-1'"),
    ],
)
def test_bad_options_are_refused_with_the_option_named(spec: str, needle: str) -> None:
    for check in (parse_spec, model_identity, load_chat_model):
        with pytest.raises(RegistryError) as caught:
            check(spec)
        assert needle in str(caught.value)


def test_keyword_options_are_checked_too() -> None:
    with pytest.raises(RegistryError, match="unknown option 'base_urll'"):
        load_chat_model("openai/m", base_urll="http://h/v1")
    with pytest.raises(RegistryError, match="option timeout='abc'"):
        load_chat_model("openai/m?base_url=http://h/v1", timeout="abc")


def test_image_providers_have_their_own_options() -> None:
    assert image_identity("openai/dall-e?size=512X512 ") == "openai/dall-e?size=512x512"
    assert image_identity("diffusers/p?steps=30&guidance=7.5") == "diffusers/p"
    assert image_identity("procedural") == "procedural"
    with pytest.raises(RegistryError, match="unknown option 'size' for openai/"):
        model_identity("openai/m?size=512x512")  # a chat model takes no size
    with pytest.raises(RegistryError, match=r"procedural/; valid options: none"):
        load_image_model("procedural?style=x")


def test_display_names_are_short_unless_two_share_one() -> None:
    shown = display_names(
        [
            "openai/m",
            "openai/m?base_url=http://127.0.0.1:8001/v1",
            "openai/m?base_url=http://127.0.0.1:8001/v1&max_tokens=8",
            "anthropic/c?base_url=http://proxy:9",
            "baseline/random?seed=1",
            "baseline/random?seed=2",
            "llava-7b",
        ]
    )
    assert shown == {
        "openai/m": "openai/m (default)",
        "openai/m?base_url=http://127.0.0.1:8001/v1": "openai/m (127.0.0.1:8001)",
        "openai/m?base_url=http://127.0.0.1:8001/v1&max_tokens=8": (
            "openai/m (127.0.0.1:8001, max_tokens=8)"
        ),
        "anthropic/c?base_url=http://proxy:9": "anthropic/c",
        "baseline/random?seed=1": "baseline/random (seed=1)",
        "baseline/random?seed=2": "baseline/random (seed=2)",
        "llava-7b": "llava-7b",
    }
    assert len(set(shown.values())) == len(shown)


def test_display_names_use_the_path_when_hosts_alike() -> None:
    shown = display_names(
        ["openai/m?base_url=http://h:1/a/v1", "openai/m?base_url=http://h:1/b/v1"]
    )
    assert sorted(shown.values()) == ["openai/m (h:1/a/v1)", "openai/m (h:1/b/v1)"]


def test_google_model_prefix_names_the_same_model() -> None:
    assert model_identity("google/models/gemini-2.0-flash") == "google/gemini-2.0-flash"
    model = load_chat_model("google/models/gemini-2.0-flash?base_url=http://127.0.0.1:9")
    assert model.spec == "google/gemini-2.0-flash?base_url=http://127.0.0.1:9"


def test_credentials_in_an_endpoint_never_reach_the_identity() -> None:
    spec = "openai/m?base_url=https://user:s3cret@proxy.example:8443/v1"
    assert model_identity(spec) == "openai/m?base_url=https://proxy.example:8443/v1"
    model = load_chat_model(spec)
    assert "s3cret" not in model.spec
    # They connect as basic auth (tests/models/test_url_credentials.py), not in the URL.
    assert model.base_url == "https://proxy.example:8443/v1"


def test_a_stored_identity_reads_back_into_its_parts() -> None:
    """Pages and the family guard read stored identities through ModelSpec.read, not by hand:
    the options come back decoded (a ``?`` inside a value, stored as ``%3F``, included)."""
    identity = model_identity("openai/gpt-4o?max_tokens=64&base_url=http://h:9/v1?x=1&system=hi")
    read = ModelSpec.read(identity)
    assert (read.provider, read.name, read.label) == ("openai", "gpt-4o", "openai/gpt-4o")
    assert read.options["base_url"] == "http://h:9/v1?x=1" and read.options["max_tokens"] == "64"
    assert read.options["system"].startswith("sha256:")
    assert ModelSpec.read("llava-7b") == ModelSpec("", "llava-7b", {})
    assert ModelSpec.read("llava-7b").label == "llava-7b"


def test_one_resolve_gives_identity_generation_settings_and_price() -> None:
    """What a caller reads of a spec comes from one parse: the rows' name (timeout and price
    left out), the settings the client applies, the price, the label."""
    spec = "openai/m?temperature=0.2&max_tokens=64&price=1,2&timeout=30&base_url=http://h:9/v1"
    resolved = resolve_model(spec)
    assert resolved.identity == "openai/m?base_url=http://h:9/v1&max_tokens=64&temperature=0.2"
    assert resolved.identity == model_identity(spec)
    assert dict(resolved.generation) == {"temperature": "0.2", "max_tokens": "64"}
    assert resolved.price == (1.0, 2.0) and resolved.label == "openai/m"
    free = resolve_model("baseline/random")
    assert (free.identity, free.price, free.label) == (
        "baseline/random",
        (0.0, 0.0),
        "baseline/random",
    )
    assert resolve_model("openai/m").price is None  # no price given: unknown, not free
    with pytest.raises(RegistryError, match="unknown provider"):
        resolve_model("nope/m")


def test_compact_display_names_stay_short_unique_and_stable() -> None:
    spec = "openai/qwen2-vl-7b-instruct?base_url=http://127.0.0.1:8080/v1&max_tokens=8"
    a = f"{spec}&system=sha256:1a2b3c4d5e6f7081&temperature=0.5"
    b = f"{spec}&system=sha256:9f8e7d6c5b4a3021&temperature=0.5"
    c = "openai/qwen2-vl-7b-instruct"
    long_name = "openai/Qwen/Qwen2.5-VL-72B-Instruct-AWQ-merged-with-a-long-tail-x"
    # Only the system prompt differs: its digest's first 6 hex digits tell the two apart,
    # where the readable form gave "(system=sha256:1a2b3c4d5e6f7081)".
    assert display_names([a, b], compact=True) == {
        a: "openai/qwen2-vl-7b-instruct (system=1a2b3c)",
        b: "openai/qwen2-vl-7b-instruct (system=9f8e7d)",
    }
    # What differs between a and c would not fit ("127.0.0.1:8080, max_tokens=8,
    # system=1a2b3c, temperature=0.5"): a hash tag of each identity, the same in any table.
    three = display_names([a, b, c], compact=True)
    assert three[c] == display_names([c, a], compact=True)[c]
    assert re.fullmatch(r"openai/qwen2-vl-7b-instruct #[0-9a-f]{4,}", three[c])
    assert len(set(three.values())) == 3 and max(len(v) for v in three.values()) <= 50
    # A provider/name over 48 characters is cut in its middle: both ends stay readable
    # ("openai/meta-llama/Llama-3.2-11B-Vision-Instruct", 47, is kept whole).
    cut = display_names([long_name], compact=True)[long_name]
    assert (
        len(cut) == 48
        and cut.startswith("openai/Qwen/Qwen2.5-VL-72B")
        and cut.endswith("long-tail-x")
    )
    # Without compact, as before.
    assert (
        display_names([a, b])[a] == "openai/qwen2-vl-7b-instruct (system=sha256:1a2b3c4d5e6f7081)"
    )
