"""Generation settings carried by a model's spec and applied by the client to every call.

``evaluate --temperature 0.7 -m openai/m`` and ``-m 'openai/m?temperature=0.7'`` are the same
run: the CLI writes its flags into the spec as options (:func:`spec_with_settings`), the
registry puts those not at their default into the model's identity (so answers under other
settings are never reused for each other) and hands them to the model, and
:class:`~lvlmbench.models.ModelClient` applies them to each call with :class:`GenerationSettings`
(after the caller's own config: a judge's max_tokens stays its own unless the user sets one).
The Python API takes the same settings (:func:`as_settings`) and writes them in with the same
function (:func:`specs_with_settings`), so a run made there is stored under the name the
command line gives it, and a setting left out has the command line's default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from lvlmbench.models._params import (
    PARAM_PREFIX,
    looks_like_credential,
    masked_spec,
    parse_param,
)
from lvlmbench.models._registry import RegistryError, parse_spec
from lvlmbench.types import GenerationConfig, Message, TextPart

__all__ = [
    "EXAMINEE_MAX_TOKENS",
    "TRUNCATION_REASONS",
    "GenerationSettings",
    "as_settings",
    "is_truncated",
    "spec_with_settings",
    "specs_with_settings",
]

EXAMINEE_MAX_TOKENS = 4096
"""Reply budget of an examinee unless ``--max-tokens`` says otherwise: far above any normal
answer (a letter, a paragraph), so only runaway or long-reasoning replies are cut, and the
largest budget every provider's current models accept (some Claude models stop at 4096)."""

TRUNCATION_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS"})
"""Finish reasons meaning "cut by the token limit": OpenAI-compatible servers and hf say
``length``, Anthropic ``max_tokens``, Google ``MAX_TOKENS``."""


def is_truncated(finish_reason: str | None) -> bool:
    """Whether a reply with this finish reason was cut by the token limit."""
    return finish_reason in TRUNCATION_REASONS


@dataclass(frozen=True)
class GenerationSettings:
    """Settings a user chose for every call of one model; None/empty means "the caller's"."""

    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None
    """A system prompt put before each call's messages (joined to a system turn already there)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Provider-specific body fields (``param.<field>`` options), passed through unchecked."""

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> GenerationSettings:
        """From canonical spec options (see :func:`lvlmbench.models.generation_options`)."""

        def number(name: str) -> float | None:
            return float(options[name]) if name in options else None

        def whole(name: str) -> int | None:
            return int(options[name]) if name in options else None

        params = {
            name.removeprefix(PARAM_PREFIX): parse_param(value)
            for name, value in sorted(options.items())
            if name.startswith(PARAM_PREFIX)
        }
        return cls(
            temperature=number("temperature"),
            top_p=number("top_p"),
            seed=whole("seed"),
            max_tokens=whole("max_tokens"),
            system=options.get("system"),
            params=params,
        )

    @property
    def empty(self) -> bool:
        """Whether these settings change nothing."""
        return self == GenerationSettings()

    def apply(self, config: GenerationConfig) -> GenerationConfig:
        """``config`` with every setting that is set taking precedence."""
        update: dict[str, Any] = {
            name: value
            for name in ("temperature", "top_p", "seed", "max_tokens")
            if (value := getattr(self, name)) is not None
        }
        if self.params:
            update["params"] = {**(config.params or {}), **self.params}
        return config.model_copy(update=update) if update else config

    def messages(self, messages: list[Message]) -> list[Message]:
        """``messages`` with the system prompt first (one system turn, ours before theirs)."""
        if self.system is None:
            return messages
        if messages and messages[0].role == "system":
            first = messages[0]
            joined = Message(role="system", content=[TextPart(text=self.system), *first.content])
            return [joined, *messages[1:]]
        return [Message.system(self.system), *messages]

    def as_options(self) -> dict[str, str]:
        """The settings that are set, as spec options (values as typed to the registry)."""
        options: dict[str, str] = {}
        for name in ("temperature", "top_p", "seed", "max_tokens", "system"):
            value = getattr(self, name)
            if value is not None:
                options[name] = str(value)
        for key, value in self.params.items():
            options[PARAM_PREFIX + key] = value if isinstance(value, str) else _json(value)
        return options


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def spec_with_settings(spec: str, settings: GenerationSettings) -> str:
    """``spec`` with ``settings`` written in as options; a setting the spec already gives with
    another value raises ValueError naming both (say it once, in one place)."""
    added = settings.as_options()
    if not added:
        return spec
    base, _, query = spec.partition("?")
    given = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    for name, value in added.items():
        if name in given and given[name] != value:
            hidden = looks_like_credential(name.removeprefix(PARAM_PREFIX))
            ours, theirs = ("***", "***") if hidden else (repr(given[name]), repr(value))
            raise ValueError(
                f"model spec {masked_spec(spec)!r} sets {name}={ours} but the command line "
                f"says {theirs}; give it once"
            )
    merged = {**given, **added}
    return f"{base}?{urlencode(merged, safe=':/@')}"


def specs_with_settings(specs: Sequence[str], settings: GenerationSettings) -> list[str]:
    """Each provider spec with ``settings`` written in (:func:`spec_with_settings`); a name that
    is no provider spec (an imported player such as ``llava-7b``) passes unchanged. What
    ``evaluate``'s flags and the Python API's ``config`` both do; ValueError as there."""
    if settings.empty:
        return list(specs)
    out = []
    for spec in specs:
        try:
            parse_spec(spec.partition("?")[0])
        except RegistryError:
            out.append(spec)
            continue
        out.append(spec_with_settings(spec, settings))
    return out


_NO_SETTING = ("stop", "json_schema", "epoch")
"""GenerationConfig fields no setting stands for: each command sets them itself."""


def as_settings(config: GenerationConfig | GenerationSettings | None) -> GenerationSettings:
    """The settings a Python API caller's ``config`` stands for, as the command line's flags
    would give them. A GenerationConfig stands for the fields it was given (``GenerationConfig(
    temperature=0.5)`` is ``--temperature 0.5``; its max_tokens default of 512 is no setting,
    so the command's own default applies, as without ``--max-tokens``). ValueError for a field
    no flag sets (stop sequences, a JSON schema, an epoch): each command sets those itself."""
    if config is None:
        return GenerationSettings()
    if isinstance(config, GenerationSettings):
        return config
    given = config.model_fields_set
    fixed = [
        name
        for name in _NO_SETTING
        if name in given and getattr(config, name) != GenerationConfig.model_fields[name].default
    ]
    if fixed:
        raise ValueError(
            f"config sets {', '.join(fixed)}: no generation setting takes "
            f"{'it' if len(fixed) == 1 else 'them'} (each command sets its own); give "
            "temperature, top_p, seed, max_tokens or params"
        )

    def chosen(name: str) -> Any:
        return getattr(config, name) if name in given else None

    return GenerationSettings(
        temperature=chosen("temperature"),
        top_p=chosen("top_p"),
        seed=chosen("seed"),
        max_tokens=chosen("max_tokens"),
        params=dict(config.params or {}) if "params" in given else {},
    )
