"""What a provider option is, and how each kind of value is checked and written canonically
(the tables that use them are in :mod:`lvlmbench.models._options`)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from lvlmbench.ids import is_text_digest, text_digest
from lvlmbench.models._params import parse_param


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


def norm_text(value: str) -> str:
    if not value.strip():
        raise OptionError("a non-empty value")
    return value.strip()


def norm_url(value: str) -> str:
    text = norm_text(value)
    if not re.match(r"^https?://[^/\s]+", text):
        raise OptionError("an http:// or https:// URL")
    if "," in text:  # a replica list where only one endpoint is taken (openai/ takes several)
        raise OptionError("one http:// or https:// URL (this provider takes no replicas)")
    # "…/v1/" and "…/v1" are one endpoint.
    return text.rstrip("/")


def norm_without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part: identities are stored and shown, secrets
    never are (the same server with other credentials is the same endpoint)."""
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}{sep}{host.rpartition('@')[2]}{slash}{path}"


def norm_url_list(value: str) -> str:
    """One or more base URLs joined by commas: replicas of one deployment, each checked."""
    urls: list[str] = []
    for position, item in enumerate(value.split(","), 1):
        try:
            url = norm_url(item)
        except OptionError:
            where = f"replica {position} ({item.strip()!r})" if "," in value else "a URL"
            raise OptionError(
                f"an http:// or https:// URL, or several joined by ',' ({where} is not one)"
            ) from None
        if url in urls:
            raise OptionError(f"each replica once ({url} is listed twice)")
        urls.append(url)
    return ",".join(urls)


def norm_first_replica(value: str) -> str:
    """How a replica list appears in an identity: its first URL, without credentials. Appending
    replicas to a deployment keeps its identity, and one URL is shown as it always was."""
    return norm_without_credentials(value.split(",", 1)[0])


def norm_deployment(value: str) -> str:
    text = norm_text(value)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:-]*", text):
        raise OptionError("a name of letters, digits, '.', '_', ':' or '-', e.g. vllm-7b-a")
    return text


def norm_env_name(value: str) -> str:
    text = norm_text(value)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise OptionError("an environment variable name such as MY_API_KEY")
    return text


def norm_positive_number(value: str) -> str:
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


def norm_positive_int(value: str) -> str:
    return _integer(value, 1, "a whole number of at least 1")


def norm_batch_size(value: str) -> str:
    if value.strip().lower() == "auto":
        return "auto"
    return _integer(value, 1, "auto or a whole number of at least 1")


def norm_non_negative_int(value: str) -> str:
    return _integer(value, 0, "a whole number of at least 0")


def norm_any_int(value: str) -> str:
    return _integer(value, -(2**63), "a whole number")


def norm_number(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        raise OptionError("a number") from None
    if not math.isfinite(number):
        raise OptionError("a finite number")
    return repr(number)


def norm_boolean(value: str) -> str:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return "true"
    if lowered in ("0", "false", "no", "off"):
        return "false"
    raise OptionError("true or false")


def norm_choice(*allowed: str) -> Normaliser:
    def check(value: str) -> str:
        if value not in allowed:
            raise OptionError("one of " + ", ".join(allowed))
        return value

    return check


def norm_size(value: str) -> str:
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


def norm_non_negative_number(value: str) -> str:
    number = float(norm_number(value))
    if number < 0:
        raise OptionError("a number of at least 0")
    return repr(number)


def norm_fraction(value: str) -> str:
    number = float(norm_number(value))
    if not 0 < number <= 1:
        raise OptionError("a number greater than 0 and at most 1")
    return repr(number)


def norm_any_text(value: str) -> str:
    if not value.strip():
        raise OptionError("a non-empty value")
    return value  # a system prompt keeps its exact whitespace: it is sent as written


def norm_text_digest(value: str) -> str:
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
