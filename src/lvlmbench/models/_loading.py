"""Building the model a spec names: every option checked, the provider's module imported on
first use (with the extra to install when it is missing), and the identity set on the model."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from lvlmbench.ids import is_text_digest
from lvlmbench.models._options import PRICE, parse_price
from lvlmbench.models._params import masked_spec
from lvlmbench.models._registry import (
    CHAT_PROVIDERS,
    Provider,
    ProviderFactory,
    ProviderTable,
    RegistryError,
    generation_only,
    identity_of,
    resolved_options,
)

if TYPE_CHECKING:
    from lvlmbench.models._api import ChatModel

__all__ = ["load_chat_model", "load_model"]


def load_model(spec: str, providers: ProviderTable, **options: Any) -> Any:
    """The model ``spec`` names in the registry ``providers``, built by its provider module's
    ``create(name, options)`` with every option checked, and its ``spec`` set to its identity.
    Raises RegistryError (or the provider's ProviderError) with a fix-it message."""
    return _load(spec, providers, options)[0]


def _load(
    spec: str, providers: ProviderTable, options: Mapping[str, Any]
) -> tuple[Any, dict[str, str]]:
    parsed, merged = resolved_options(spec, providers, options)
    provider = providers[parsed.provider]
    if is_text_digest(merged.get("system", "")):
        raise RegistryError(
            f"model spec {masked_spec(spec)!r}: system={merged['system']} is a stored prompt's "
            "digest, not a prompt; give the text (--system-prompt TEXT or @FILE) to run it"
        )
    # The price is the client's (what the calls cost), never the provider's concern.
    built = {name: value for name, value in merged.items() if name != PRICE}
    model = _factory(parsed.provider, provider)(parsed.name, built)
    # The registry owns identity: every stored row is keyed by it (see model_identity).
    model.spec = identity_of(parsed, provider, merged)
    return model, merged


def _factory(name: str, provider: Provider) -> ProviderFactory:
    if provider.factory is not None:
        return provider.factory
    if provider.module is None:
        raise RegistryError(
            f"{name}/... is implemented in {provider.provided_by}, which is not imported: "
            f"import {provider.provided_by} first (lvlmbench.runner, lvlmbench.api and the "
            "CLI do)"
        )
    try:
        module = importlib.import_module(provider.module)
    except ImportError as exc:
        extra = provider.extra or name
        raise RegistryError(
            f"{name}/... needs the '{extra}' extra ({exc.name or exc} is missing): "
            f"pip install 'lvlmbench[{extra}]'"
        ) from None
    return cast(ProviderFactory, module.create)


def load_chat_model(spec: str, **options: Any) -> ChatModel:
    """A ChatModel for ``spec``. Raises RegistryError or ProviderError with a fix-it message."""
    model, merged = _load(spec, CHAT_PROVIDERS, options)
    model.generation = generation_only(merged)  # what ModelClient applies to each call
    # What ModelClient prices the calls at (None: no price given).
    model.price_per_mtok = parse_price(merged[PRICE]) if PRICE in merged else None
    return cast("ChatModel", model)
