"""What a ``param.<field>`` option (``--param FIELD=VALUE``) may name, per provider.

A param is a request field passed through unvalidated, for what a provider offers beyond the
common settings (``reasoning_effort``, Anthropic's ``thinking``...). It is merged into the body
after the client built it, so a param naming a field the client builds (``messages``, ``n``,
``stream``) or one with its own checked option (``max_tokens``) would replace what was built or
checked: a request without the item, five paid choices of which one is read, a streamed reply
read as one, a negative budget. Each provider declares those fields (:class:`ParamRules`, next
to its options in :mod:`lvlmbench.models._options`) and the registry refuses them where the spec
is parsed, so the CLI and the Python API refuse alike, before any call or store write.

A param whose name looks like a credential (``api_key``, ``x-api-key``, ``access_token``,
``authorization``) is refused for every provider: a param is part of the model's identity,
which is stored and shown (responses, reports, leaderboards, the terminal). The refusal names
the field and where a key goes instead, never the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lvlmbench.models._secrets import mask_url_credentials

__all__ = ["PARAM_PREFIX", "ParamRules", "looks_like_credential", "masked_spec", "parse_param"]

PARAM_PREFIX = "param."
"""Options ``param.<field>=<value>`` pass a provider's own body field through unvalidated."""


def parse_param(value: str) -> object:
    """The value a ``param.*`` option sends: its JSON when it parses, else the text."""
    try:
        parsed: object = json.loads(value)
    except (ValueError, RecursionError):  # not JSON (or nested past the stack): the text
        return value
    return parsed


_CREDENTIAL_PARTS = frozenset(
    {
        "apikey",
        "auth",
        "authentication",
        "authorisation",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "key",
        "passphrase",
        "passwd",
        "password",
        "secret",
        "token",
    }
)
"""Name parts that mark a credential. ``token`` but not ``tokens``: ``max_tokens`` is a budget."""

_COUNT_PARTS = frozenset({"max", "min", "num", "count", "limit", "budget", "total"})
"""Parts that make ``token`` a count of tokens, not one (``max_token``, ``num_token``)."""


def _name_parts(name: str) -> list[str]:
    """``x-api-key`` -> x, api, key; ``accessToken`` -> access, token; ``APIKey`` -> api, key."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [part.lower() for part in re.split(r"[^A-Za-z0-9]+", spaced) if part]


def looks_like_credential(name: str) -> bool:
    """Whether a field or option name looks like it holds a credential (a part of it is key,
    token, secret, password, auth... as in ``api_key``, ``x-api-key``, ``access_token``)."""
    parts = _name_parts(name)
    found = _CREDENTIAL_PARTS.intersection(parts)
    if found == {"token"} and _COUNT_PARTS.intersection(parts):
        return False
    return bool(found)


def masked_spec(spec: str) -> str:
    """``spec`` as it may appear in a message: the value of every option whose name looks like
    a credential, and the password of a URL written into it, replaced by ``***`` (read even from
    a spec too malformed to parse)."""
    spec = mask_url_credentials(spec)  # a base_url's user:password@ too
    base, sep, query = spec.partition("?")
    if not sep:
        return spec
    pieces = []
    for piece in query.split("&"):
        name, eq, _value = piece.partition("=")
        field_name = name.removeprefix(PARAM_PREFIX)
        hidden = eq and looks_like_credential(re.sub(r"%[0-9A-Fa-f]{2}", "_", field_name))
        pieces.append(f"{name}=***" if hidden else piece)
    return f"{base}?{'&'.join(pieces)}"


@dataclass(frozen=True)
class ParamRules:
    """The ``param.<field>`` options one provider refuses, and where its key goes."""

    reserved: Mapping[str, str] = field(default_factory=dict)
    """field -> what to do instead (``use --max-tokens ...``, or why it cannot be set): the
    client builds the field itself or checks it through its own option. ``outer.inner``:
    ``inner`` inside an object-valued param ``outer`` (Google's ``thinkingConfig.thinkingBudget``
    is the ``thinking_budget`` option)."""
    none_because: str | None = None
    """Set when the provider takes no params at all: why (a local model has no request body)."""
    credentials: str = "give it in the environment the provider reads"
    """Where the provider's key goes (said when a param looks like a credential)."""
    proto_json: bool = False
    """Field names may be written in snake_case too (protobuf JSON, as Google's API reads
    them): ``max_output_tokens`` is ``maxOutputTokens``."""

    def refusal(self, provider: str, name: str, value: str) -> str | None:
        """Why ``param.<name>=<value>`` is refused for ``provider``/, or None when it is taken.
        The message names the field, never the value."""
        if looks_like_credential(name):
            return self.credential_refusal(PARAM_PREFIX + name)
        if self.none_because is not None:
            return f"{provider}/ takes no params ({self.none_because}); drop {PARAM_PREFIX}{name}"
        key = _camel(name) if self.proto_json else name
        instead = self.reserved.get(key) or self._nested(key, value)
        if instead is None:
            return None
        return (
            f"{PARAM_PREFIX}{name} would replace a request field that {provider}/ builds itself "
            f"or checks through its own option: {instead}"
        )

    def credential_refusal(self, option: str) -> str:
        """Why ``option`` (a name that looks like a credential) is refused; not its value."""
        return (
            f"{option} looks like a credential, which never goes into a model spec (its "
            "options are the model's name, stored and shown in every result); it was not "
            f"used: {self.credentials}"
        )

    def _nested(self, name: str, value: str) -> str | None:
        parsed = parse_param(value)
        if not isinstance(parsed, dict):
            return None
        given = {_camel(k) if self.proto_json else k for k in parsed}
        for path, instead in self.reserved.items():
            outer, dot, inner = path.partition(".")
            if dot and outer == name and inner in given:
                return f"{instead} (for {name}.{inner})"
        return None


def _camel(name: str) -> str:
    """``max_output_tokens`` -> ``maxOutputTokens`` (a camelCase name is kept)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
