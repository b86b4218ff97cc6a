"""The options each provider accepts in a spec (``provider/name?key=value``), declared once.

The registry checks every option against these tables before a model is built, so a typo
(``base_urll=``) or a malformed value (``timeout=abc``) is refused before any call or store
write. Each option also says whether it changes what the model answers: those options, when not
at their default, are part of the model's identity in the store (:func:`model_identity`), so two
endpoints serving one model name keep two sets of answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = [
    "ANTHROPIC_OPTIONS",
    "BASELINE_OPTIONS",
    "DIFFUSERS_OPTIONS",
    "GOOGLE_CHAT_OPTIONS",
    "HF_OPTIONS",
    "OPENAI_CHAT_OPTIONS",
    "OPENAI_IMAGE_OPTIONS",
    "Option",
    "OptionError",
    "normalise_option",
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


def _text(value: str) -> str:
    if not value.strip():
        raise OptionError("a non-empty value")
    return value.strip()


def _url(value: str) -> str:
    text = _text(value)
    if not re.match(r"^https?://[^/\s]+", text):
        raise OptionError("an http:// or https:// URL")
    # "…/v1/" and "…/v1" are one endpoint.
    return text.rstrip("/")


def _without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part: identities are stored and shown, secrets
    never are (the same server with other credentials is the same endpoint)."""
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}{sep}{host.rpartition('@')[2]}{slash}{path}"


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


def _endpoint(default: str, env: str) -> Option:
    return Option(_url, True, default=default, env=env, public=_without_credentials)


_KEY_ENV = Option(_env_name, changes_output=False)
_TIMEOUT = Option(_positive_number, changes_output=False)

OPENAI_CHAT_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://api.openai.com/v1", "OPENAI_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    # How structured output is asked for: the answer is validated the same way whichever works.
    "json_mode": Option(_choice("json_schema", "json_object", "none"), changes_output=False),
    "max_tokens": Option(_positive_int, changes_output=True),
}
ANTHROPIC_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://api.anthropic.com", "ANTHROPIC_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
}
GOOGLE_CHAT_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://generativelanguage.googleapis.com", "GOOGLE_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    "json_mode": Option(_choice("json_schema", "openapi", "json"), changes_output=False),
    "thinking_budget": Option(_non_negative_int, changes_output=True),
}
HF_OPTIONS: Mapping[str, Option] = {
    "device": Option(_text, changes_output=False),
    "dtype": Option(_text, changes_output=True, default="auto"),
    "batch_size": Option(_positive_int, changes_output=False),
    "revision": Option(_text, changes_output=True),
    "trust_remote_code": Option(_boolean, changes_output=False),
    "local_files_only": Option(_boolean, changes_output=False),
}
BASELINE_OPTIONS: Mapping[str, Option] = {
    "seed": Option(_any_int, changes_output=True, default="0"),
}
OPENAI_IMAGE_OPTIONS: Mapping[str, Option] = {
    "base_url": _endpoint("https://api.openai.com/v1", "OPENAI_BASE_URL"),
    "api_key_env": _KEY_ENV,
    "timeout": _TIMEOUT,
    "quality": Option(_text, changes_output=True),
    "style": Option(_text, changes_output=True),
    "size": Option(_size, changes_output=True),
    "seed": Option(_boolean, changes_output=True),
}
DIFFUSERS_OPTIONS: Mapping[str, Option] = {
    "device": Option(_text, changes_output=False),
    "dtype": Option(_text, changes_output=True, default="auto"),
    "steps": Option(_positive_int, changes_output=True, default="30"),
    "guidance": Option(_number, changes_output=True, default="7.5"),
    "revision": Option(_text, changes_output=True),
    "local_files_only": Option(_boolean, changes_output=False),
}
