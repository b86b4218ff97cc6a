"""The options each provider accepts in a spec (``provider/name?key=value``), declared once.

The registry checks every option against these tables before a model is built, so a typo
(``base_urll=``) or a malformed value (``timeout=abc``) is refused before any call or store
write. Each option also says whether it changes what the model answers: those options, when not
at their default, are part of the model's identity in the store (:func:`model_identity`), so two
endpoints serving one model name keep two sets of answers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lvlmbench.ids import is_text_digest, text_digest
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


class OptionError(ValueError):
    """A value that does not have the option's expected form; the message says the form."""


Normaliser = Callable[[str], str]


@dataclass(frozen=True)
class Option:
    """One provider option: how its value is checked and written canonically."""

    normalise: Normaliser
    """The value in canonical form (also the check: raises OptionError when malformed)."""
    changes_output: bool
    """Whether a different value may change the answers (then it is part of the identity)."""
    default: str | None = None
    """Canonical value when the option is not given (None: unset)."""
    env: str | None = None
    """Environment variable consulted when the option is not given."""
    public: Normaliser | None = None
    """The canonical value as it may be stored and shown (None: as it is)."""
    superseded_by: str | None = None
    """Another option that, when given, stands for this one in the identity (``deployment``
    names a set of replicas, so their URLs are left out)."""


def _text(value: str) -> str:
    if not value.strip():
        raise OptionError("a non-empty value")
    return value.strip()


def _url(value: str) -> str:
    text = _text(value)
    if not re.match(r"^https?://[^/\s]+", text):
        raise OptionError("an http:// or https:// URL")
    if "," in text:  # a replica list where only one endpoint is taken (openai/ takes several)
        raise OptionError("one http:// or https:// URL (this provider takes no replicas)")
    # "…/v1/" and "…/v1" are one endpoint.
    return text.rstrip("/")


def _without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part: identities are stored and shown, secrets
    never are (the same server with other credentials is the same endpoint)."""
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}{sep}{host.rpartition('@')[2]}{slash}{path}"


def _url_list(value: str) -> str:
    """One or more base URLs joined by commas: replicas of one deployment, each checked."""
    urls: list[str] = []
    for position, item in enumerate(value.split(","), 1):
        try:
            url = _url(item)
        except OptionError:
            where = f"replica {position} ({item.strip()!r})" if "," in value else "a URL"
            raise OptionError(
                f"an http:// or https:// URL, or several joined by ',' ({where} is not one)"
            ) from None
        if url in urls:
            raise OptionError(f"each replica once ({url} is listed twice)")
        urls.append(url)
    return ",".join(urls)


def _first_replica(value: str) -> str:
    """How a replica list appears in an identity: its first URL, without credentials. Appending
    replicas to a deployment keeps its identity, and one URL is shown as it always was."""
    return _without_credentials(value.split(",", 1)[0])


def _deployment(value: str) -> str:
    text = _text(value)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:-]*", text):
        raise OptionError("a name of letters, digits, '.', '_', ':' or '-', e.g. vllm-7b-a")
    return text


def _env_name(value: str) -> str:
    text = _text(value)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise OptionError("an environment variable name such as MY_API_KEY")
    return text


def _positive_number(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        raise OptionError("a number of seconds greater than 0") from None
    if not math.isfinite(number) or number <= 0:
        raise OptionError("a number of seconds greater than 0")
    return repr(number)


def _integer(value: str, minimum: int, form: str) -> str:
    try:
        number = int(value.strip())
    except ValueError:
        raise OptionError(form) from None
    if number < minimum:
        raise OptionError(form)
    return str(number)


def _positive_int(value: str) -> str:
    return _integer(value, 1, "a whole number of at least 1")


def _batch_size(value: str) -> str:
    if value.strip().lower() == "auto":
        return "auto"
    return _integer(value, 1, "auto or a whole number of at least 1")


def _non_negative_int(value: str) -> str:
    return _integer(value, 0, "a whole number of at least 0")


def _any_int(value: str) -> str:
    return _integer(value, -(2**63), "a whole number")


def _number(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        raise OptionError("a number") from None
    if not math.isfinite(number):
        raise OptionError("a finite number")
    return repr(number)


def _boolean(value: str) -> str:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return "true"
    if lowered in ("0", "false", "no", "off"):
        return "false"
    raise OptionError("true or false")


def _choice(*allowed: str) -> Normaliser:
    def check(value: str) -> str:
        if value not in allowed:
            raise OptionError("one of " + ", ".join(allowed))
        return value

    return check


def _size(value: str) -> str:
    match = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", value, re.IGNORECASE)
    if not match or int(match.group(1)) < 1 or int(match.group(2)) < 1:
        raise OptionError("WIDTHxHEIGHT, e.g. 1024x1024")
    return f"{int(match.group(1))}x{int(match.group(2))}"


def normalise_option(name: str, option: Option, value: str) -> str:
    """``value`` in canonical form; OptionError names the option and the expected form."""
    try:
        return option.normalise(value)
    except OptionError as exc:
        raise OptionError(f"option {name}={value!r}: expected {exc}") from None


def _non_negative_number(value: str) -> str:
    number = float(_number(value))
    if number < 0:
        raise OptionError("a number of at least 0")
    return repr(number)


def _fraction(value: str) -> str:
    number = float(_number(value))
    if not 0 < number <= 1:
        raise OptionError("a number greater than 0 and at most 1")
    return repr(number)


def _any_text(value: str) -> str:
    if not value.strip():
        raise OptionError("a non-empty value")
    return value  # a system prompt keeps its exact whitespace: it is sent as written


def _text_digest(value: str) -> str:
    """How a system prompt appears in an identity: short, and the same text gives the same (the
    key the store keeps the text under). A digest is kept as it is, so an identity typed back
    names the same rows."""
    return value if is_text_digest(value) else text_digest(value)


def _param_value(value: str) -> str:
    """A ``param.*`` value: JSON when it parses (``true``, ``3``, ``{"a": 1}``), else the text;
    written canonically so ``{"a":1}`` and ``{ "a": 1 }`` are one identity."""
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return value  # plain text such as ``high``: kept as written, readable in identities
    if isinstance(parsed, str) and parse_param(parsed) == parsed:
        return parsed  # ``"high"`` is ``high``
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"))


def param_option() -> Option:
    """The option every ``param.<field>`` key takes (any provider-specific field, unchecked)."""
    return Option(_param_value, changes_output=True)


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
    "temperature": Option(_non_negative_number, changes_output=True, default="0.0"),
    "top_p": Option(_fraction, changes_output=True),
    "seed": Option(_any_int, changes_output=True),
    "max_tokens": Option(_positive_int, changes_output=True),
    "system": Option(_any_text, changes_output=True, public=_text_digest),
}


def _endpoint(default: str, env: str) -> Option:
    return Option(_url, True, default=default, env=env, public=_without_credentials)


_KEY_ENV = Option(_env_name, changes_output=False)
_TIMEOUT = Option(_positive_number, changes_output=False)

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
        _url_list,
        True,
        default="https://api.openai.com/v1",
        env="OPENAI_BASE_URL",
        public=_first_replica,
        superseded_by="deployment",
    ),
    # A deployment's name: its identity whatever replicas serve it (their URLs are left out).
    "deployment": Option(_deployment, changes_output=True),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    # How structured output is asked for: the answer is validated the same way whichever works.
    "json_mode": Option(_choice("json_schema", "json_object", "none"), changes_output=False),
    "max_tokens": Option(_positive_int, changes_output=True),
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
    "json_mode": Option(_choice("json_schema", "openapi", "json"), changes_output=False),
    "thinking_budget": Option(_non_negative_int, changes_output=True),
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
    "ray": Option(_boolean, changes_output=False),
    "actors": Option(_positive_int, changes_output=False),
    "num_gpus": Option(_non_negative_number, changes_output=False),
    "ray_address": Option(_text, changes_output=False),
}
HF_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "device": Option(_text, changes_output=False),
    "dtype": Option(_text, changes_output=True, default="auto"),
    "batch_size": Option(_batch_size, changes_output=False),
    "max_batch_size": Option(_positive_int, changes_output=False),
    "continuous": Option(_boolean, changes_output=False),
    "overlap": Option(_boolean, changes_output=False),
    "devices": Option(_text, changes_output=False),
    "replicas": Option(_positive_int, changes_output=False),
    "revision": Option(_text, changes_output=True),
    "trust_remote_code": Option(_boolean, changes_output=False),
    "local_files_only": Option(_boolean, changes_output=False),
    **RAY_OPTIONS,
}
HF_PARAMS = ParamRules(
    none_because="a local model has no request body to pass them into",
    credentials="set HF_TOKEN for a gated Hub model",
)
BASELINE_OPTIONS: Mapping[str, Option] = {
    **GENERATION_OPTIONS,
    "seed": Option(_any_int, changes_output=True, default="0"),
}
BASELINE_PARAMS = ParamRules(
    none_because="a weightless baseline sends no request",
    credentials="a baseline needs no key",
)
OPENAI_IMAGE_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://api.openai.com/v1", "OPENAI_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    "quality": Option(_text, changes_output=True),
    "style": Option(_text, changes_output=True),
    "size": Option(_size, changes_output=True),
    "seed": Option(_boolean, changes_output=True),
    PRICE: IMAGE_PRICE_OPTION,
}
DIFFUSERS_OPTIONS: Mapping[str, Option] = {
    "device": Option(_text, changes_output=False),
    "dtype": Option(_text, changes_output=True, default="auto"),
    "steps": Option(_positive_int, changes_output=True, default="30"),
    "guidance": Option(_number, changes_output=True, default="7.5"),
    "revision": Option(_text, changes_output=True),
    "local_files_only": Option(_boolean, changes_output=False),
    PRICE: IMAGE_PRICE_OPTION,
    **RAY_OPTIONS,
}
