"""``provider/name`` strings to model objects, importing each back-end only when asked for.

A spec is ``provider/name`` optionally followed by ``?key=value&key=value`` options, e.g.
``openai/gemma-3-270m?base_url=http://127.0.0.1:8080/v1``. Options may also be passed as keyword
arguments; those win over the ones in the string.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qsl

if TYPE_CHECKING:
    from lvlmbench.images._api import TextToImage
    from lvlmbench.models._api import ChatModel

__all__ = [
    "CHAT_PROVIDERS",
    "IMAGE_PROVIDERS",
    "ModelSpec",
    "RegistryError",
    "load_chat_model",
    "load_image_model",
    "parse_spec",
]


class RegistryError(ValueError):
    """A spec that names no known provider, or a provider whose extra is not installed."""


@dataclass(frozen=True)
class _Provider:
    module: str
    extra: str | None
    """pip extra that brings this provider's dependencies (None: core)."""
    env_defaults: Mapping[str, str] = field(default_factory=dict)
    """option -> environment variable consulted when the option is not given."""


CHAT_PROVIDERS: dict[str, _Provider] = {
    "openai": _Provider("lvlmbench.models.openai", None, {"base_url": "OPENAI_BASE_URL"}),
    "anthropic": _Provider("lvlmbench.models.anthropic", None, {"base_url": "ANTHROPIC_BASE_URL"}),
    "google": _Provider("lvlmbench.models.google", None, {"base_url": "GOOGLE_BASE_URL"}),
    "hf": _Provider("lvlmbench.models.hf", "hf"),
    "baseline": _Provider("lvlmbench.models.baselines", None),
}
IMAGE_PROVIDERS: dict[str, _Provider] = {
    "procedural": _Provider("lvlmbench.images.procedural", None),
    "diffusers": _Provider("lvlmbench.images.diffusers", "diffusers"),
    "openai": _Provider("lvlmbench.images.openai", None, {"base_url": "OPENAI_BASE_URL"}),
}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``provider/name?options`` string."""

    provider: str
    name: str
    options: Mapping[str, str]


def parse_spec(spec: str, providers: Mapping[str, Any] | None = None) -> ModelSpec:
    """Split a spec into provider, name and options; raise RegistryError when malformed."""
    known = providers if providers is not None else CHAT_PROVIDERS
    base, _, query = spec.partition("?")
    provider, sep, name = base.partition("/")
    if provider in known and not sep and provider == "procedural":
        return ModelSpec(provider, "", dict(parse_qsl(query)))
    if not sep or not provider or not name:
        raise RegistryError(
            f"model spec {spec!r}: expected provider/name (e.g. openai/gpt-4o-mini); "
            f"providers: {', '.join(known)}"
        )
    if provider not in known:
        raise RegistryError(
            f"model spec {spec!r}: unknown provider {provider!r}; known: {', '.join(known)}"
        )
    return ModelSpec(provider, name, dict(parse_qsl(query)))


def _load(spec: str, providers: Mapping[str, _Provider], options: Mapping[str, Any]) -> Any:
    parsed = parse_spec(spec, providers)
    provider = providers[parsed.provider]
    merged = {k: str(v) for k, v in {**parsed.options, **options}.items() if v is not None}
    for option, env_var in provider.env_defaults.items():
        if option not in merged and os.environ.get(env_var):
            merged[option] = os.environ[env_var]
    try:
        module = importlib.import_module(provider.module)
    except ImportError as exc:
        extra = provider.extra or parsed.provider
        raise RegistryError(
            f"{parsed.provider}/... needs the '{extra}' extra ({exc.name or exc} is missing): "
            f"pip install 'lvlmbench[{extra}]'"
        ) from None
    return module.create(parsed.name, merged)


def load_chat_model(spec: str, **options: Any) -> ChatModel:
    """A ChatModel for ``spec``. Raises RegistryError or ProviderError with a fix-it message."""
    return cast("ChatModel", _load(spec, CHAT_PROVIDERS, options))


def load_image_model(spec: str, **options: Any) -> TextToImage:
    """A TextToImage model for ``spec`` (``procedural`` needs no name)."""
    return cast("TextToImage", _load(spec, IMAGE_PROVIDERS, options))
