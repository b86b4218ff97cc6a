"""The options each provider accepts in a spec (``provider/name?key=value``), declared once.

The registry checks every option against these tables before a model is built, so a typo
(``base_urll=``) or a malformed value (``timeout=abc``) is refused before any call or store
write. Each option also says whether it changes what the model answers: those options, when not
at their default, are part of the model's identity in the store (:func:`model_identity`), so two
endpoints serving one model name keep two sets of answers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from lvlmbench.ids import is_text_digest
from lvlmbench.models._option_values import (
    Option,
    OptionError,
    norm_any_int,
    norm_any_text,
    norm_batch_size,
    norm_boolean,
    norm_choice,
    norm_deployment,
    norm_env_name,
    norm_first_replica,
    norm_fraction,
    norm_non_negative_int,
    norm_non_negative_number,
    norm_number,
    norm_positive_int,
    norm_positive_number,
    norm_size,
    norm_text,
    norm_text_digest,
    norm_url,
    norm_url_list,
    norm_without_credentials,
    normalise_option,
    param_option,
)
from lvlmbench.models._params import PARAM_PREFIX, ParamRules, parse_param

__all__ = [
    "ANTHROPIC_OPTIONS",
    "ANTHROPIC_PARAMS",
    "BASELINE_OPTIONS",
    "BASELINE_PARAMS",
    "DIFFUSERS_OPTIONS",
    "GENERATION_OPTIONS",
    "GOOGLE_CHAT_OPTIONS",
    "GOOGLE_CHAT_PARAMS",
    "HF_OPTIONS",
    "HF_PARAMS",
    "IMAGE_PRICE_OPTION",
    "OPENAI_CHAT_OPTIONS",
    "OPENAI_CHAT_PARAMS",
    "OPENAI_IMAGE_OPTIONS",
    "PARAM_PREFIX",
    "PRICE",
    "PRICE_OPTION",
    "Option",
    "OptionError",
    "is_text_digest",
    "normalise_option",
    "param_option",
    "parse_image_price",
    "parse_param",
    "parse_price",
]


PRICE = "price"
"""Option ``price=IN,OUT``: USD per million input and output tokens, which every chat provider
takes (the registry adds it, as it adds ``param.*``). It prices the calls, it does not change
them: never part of the identity or the cache key, so adding or correcting a price later finds
every stored answer."""

_PRICE_FORM = (
    "IN,OUT: USD per million input and output tokens, two numbers of at least 0 (e.g. price=2.5,10)"
)


def parse_price(value: str) -> tuple[float, float]:
    """``"2.5,10"`` -> (2.5, 10.0); OptionError with the expected form otherwise."""
    parts = value.split(",")
    if len(parts) != 2:
        raise OptionError(_PRICE_FORM)
    try:
        price_in, price_out = (float(part.strip().removeprefix("$")) for part in parts)
    except ValueError:
        raise OptionError(_PRICE_FORM) from None
    if not all(math.isfinite(p) and p >= 0 for p in (price_in, price_out)):
        raise OptionError(_PRICE_FORM)
    return price_in + 0.0, price_out + 0.0  # -0 is 0


def _price(value: str) -> str:
    price_in, price_out = parse_price(value)
    return f"{price_in!r},{price_out!r}"


PRICE_OPTION = Option(_price, changes_output=False)

_IMAGE_PRICE_FORM = (
    "USD_PER_IMAGE: US dollars per image, one number of at least 0 (e.g. price=0.04)"
)


def parse_image_price(value: str) -> float:
    """A text-to-image spec's ``price``: ``"0.04"`` -> 0.04 (USD per image rendered);
    OptionError with the expected form otherwise."""
    try:
        price = float(value.strip().removeprefix("$"))
    except ValueError:
        raise OptionError(_IMAGE_PRICE_FORM) from None
    if not (math.isfinite(price) and price >= 0):
        raise OptionError(_IMAGE_PRICE_FORM)
    return price + 0.0  # -0 is 0


def _image_price(value: str) -> str:
    return repr(parse_image_price(value))


IMAGE_PRICE_OPTION = Option(_image_price, changes_output=False)
"""Option ``price=USD_PER_IMAGE`` of the text-to-image providers that cost money per image
(``openai/``, ``diffusers/``): like a chat ``price``, it prices the renders and changes none, so
it is never part of the identity or the cache key."""


# Generation settings every chat provider takes (``evaluate --temperature`` etc. become these
# options): part of the identity when not at their default, so answers sampled under other
# settings are never reused for each other. No max_tokens default: each command has its own.
GENERATION_OPTIONS: Mapping[str, Option] = {
    "temperature": Option(norm_non_negative_number, changes_output=True, default="0.0"),
    "top_p": Option(norm_fraction, changes_output=True),
    "seed": Option(norm_any_int, changes_output=True),
    "max_tokens": Option(norm_positive_int, changes_output=True),
    "system": Option(norm_any_text, changes_output=True, public=norm_text_digest),
}


def _endpoint(default: str, env: str) -> Option:
    return Option(norm_url, True, default=default, env=env, public=norm_without_credentials)


_KEY_ENV = Option(norm_env_name, changes_output=False)
_TIMEOUT = Option(norm_positive_number, changes_output=False)

# What a ``param.<field>`` may not name, per provider (see lvlmbench.models._params): the
# fields each client builds into its request, or checks through an option of its own.
_MODEL = "use the spec's model name (PROVIDER/NAME)"
_MESSAGES = "the items are sent as built; use --system-prompt (option system=) for a system turn"
_STOP = "not settable: each command sets the stop sequences it needs"
_ONE_REPLY = "use --epochs K for several samples (each cached and stored; one reply is read)"
_WHOLE = "not settable: the client reads each reply whole"


def _flag(option: str) -> str:
    return f"use --{option.replace('_', '-')} (option {option}=)"


def _key_env(default: str) -> str:
    return f"set {default}, or name another variable with api_key_env=VAR"


OPENAI_CHAT_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    # Several URLs joined by ',' are replicas of one deployment: calls are balanced across them.
    "base_url": Option(
        norm_url_list,
        True,
        default="https://api.openai.com/v1",
        env="OPENAI_BASE_URL",
        public=norm_first_replica,
        superseded_by="deployment",
    ),
    # A deployment's name: its identity whatever replicas serve it (their URLs are left out).
    "deployment": Option(norm_deployment, changes_output=True),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    # How structured output is asked for: the answer is validated the same way whichever works.
    "json_mode": Option(norm_choice("json_schema", "json_object", "none"), changes_output=False),
    "max_tokens": Option(norm_positive_int, changes_output=True),
}
OPENAI_CHAT_PARAMS = ParamRules(
    reserved={
        "model": _MODEL,
        "messages": _MESSAGES,
        **{name: _flag(name) for name in ("temperature", "top_p", "seed", "max_tokens")},
        "max_completion_tokens": _flag("max_tokens"),
        "stop": _STOP,
        "response_format": "use option json_mode= (json_schema, json_object or none)",
        "n": _ONE_REPLY,
        "stream": _WHOLE,
        "stream_options": _WHOLE,
    },
    credentials=_key_env("OPENAI_API_KEY"),
)
ANTHROPIC_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "base_url": _endpoint("https://api.anthropic.com", "ANTHROPIC_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
}
ANTHROPIC_PARAMS = ParamRules(
    reserved={
        "model": _MODEL,
        "messages": _MESSAGES,
        "system": "use --system-prompt (option system=)",
        **{name: _flag(name) for name in ("temperature", "top_p", "max_tokens")},
        "stop_sequences": _STOP,
        "tools": "not settable: the client builds them for structured answers",
        "tool_choice": "not settable: the client builds it for structured answers",
        "stream": _WHOLE,
    },
    credentials=_key_env("ANTHROPIC_API_KEY"),
)
GOOGLE_CHAT_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "base_url": _endpoint("https://generativelanguage.googleapis.com", "GOOGLE_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    "json_mode": Option(norm_choice("json_schema", "openapi", "json"), changes_output=False),
    "thinking_budget": Option(norm_non_negative_int, changes_output=True),
}
# Google's params are generationConfig fields (the client merges them there).
GOOGLE_CHAT_PARAMS = ParamRules(
    reserved={
        "temperature": _flag("temperature"),
        "topP": _flag("top_p"),
        "seed": _flag("seed"),
        "maxOutputTokens": _flag("max_tokens"),
        "stopSequences": _STOP,
        **dict.fromkeys(
            ("responseMimeType", "responseSchema", "responseJsonSchema"),
            "use option json_mode= (json_schema, openapi or json)",
        ),
        "candidateCount": _ONE_REPLY,
        "thinkingConfig.thinkingBudget": "use option thinking_budget=N",
    },
    proto_json=True,
    credentials=_key_env("GOOGLE_API_KEY (or GEMINI_API_KEY)"),
)
# hf/... and diffusers/... on a Ray actor pool run the same model code: where changes speed only.
RAY_OPTIONS: Mapping[str, Option] = {
    "ray": Option(norm_boolean, changes_output=False),
    "actors": Option(norm_positive_int, changes_output=False),
    "num_gpus": Option(norm_non_negative_number, changes_output=False),
    "ray_address": Option(norm_text, changes_output=False),
}
HF_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "device": Option(norm_text, changes_output=False),
    "dtype": Option(norm_text, changes_output=True, default="auto"),
    "batch_size": Option(norm_batch_size, changes_output=False),
    "max_batch_size": Option(norm_positive_int, changes_output=False),
    "continuous": Option(norm_boolean, changes_output=False),
    "overlap": Option(norm_boolean, changes_output=False),
    "decode_threads": Option(norm_positive_int, changes_output=False),
    "image_device": Option(norm_text, changes_output=False),
    "devices": Option(norm_text, changes_output=False),
    "replicas": Option(norm_positive_int, changes_output=False),
    "revision": Option(norm_text, changes_output=True),
    "trust_remote_code": Option(norm_boolean, changes_output=False),
    "local_files_only": Option(norm_boolean, changes_output=False),
    **RAY_OPTIONS,
}
HF_PARAMS = ParamRules(
    none_because="a local model has no request body to pass them into",
    credentials="set HF_TOKEN for a gated Hub model",
)
BASELINE_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "seed": Option(norm_any_int, changes_output=True, default="0"),
}
BASELINE_PARAMS = ParamRules(
    none_because="a weightless baseline sends no request",
    credentials="a baseline needs no key",
)
OPENAI_IMAGE_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://api.openai.com/v1", "OPENAI_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    "quality": Option(norm_text, changes_output=True),
    "style": Option(norm_text, changes_output=True),
    "size": Option(norm_size, changes_output=True),
    "seed": Option(norm_boolean, changes_output=True),
    PRICE: IMAGE_PRICE_OPTION,
}
DIFFUSERS_OPTIONS: Mapping[str, Option] = {
    "device": Option(norm_text, changes_output=False),
    "dtype": Option(norm_text, changes_output=True, default="auto"),
    "steps": Option(norm_positive_int, changes_output=True, default="30"),
    "guidance": Option(norm_number, changes_output=True, default="7.5"),
    "revision": Option(norm_text, changes_output=True),
    "local_files_only": Option(norm_boolean, changes_output=False),
    PRICE: IMAGE_PRICE_OPTION,
    **RAY_OPTIONS,
}
