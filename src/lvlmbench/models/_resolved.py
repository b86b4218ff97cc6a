"""A model spec resolved once: what a caller needs of it without splitting the string again.

A command or the Python API resolves each ``--model`` at its entry and passes the result
down; identity (the rows' name), generation settings and price are read from it, so a spec
is parsed, checked and its environment defaults read once per run, not once per question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lvlmbench.models._options import PRICE, parse_price
from lvlmbench.models._registry import (
    CHAT_PROVIDERS,
    ModelSpec,
    ProviderTable,
    generation_only,
    identity_of,
    resolved_options,
)

__all__ = [
    "ResolvedModel",
    "generation_options",
    "model_identity",
    "model_price",
    "resolve_model",
    "resolve_spec",
    "spec_option",
]


@dataclass(frozen=True)
class ResolvedModel:
    """A spec parsed and checked, its options canonical (environment defaults applied)."""

    spec: ModelSpec
    """Provider, name and the canonical options."""
    identity: str
    """The name its rows are stored under (see :func:`~lvlmbench.models.model_identity`)."""
    free: bool
    """Whether its provider costs nothing (``baseline/…``)."""

    @property
    def label(self) -> str:
        """``provider/name`` without the options."""
        return self.spec.label

    @property
    def generation(self) -> Mapping[str, str]:
        """The generation settings it carries (see :func:`~lvlmbench.models.generation_options`)."""
        return generation_only(self.spec.options)

    @property
    def price(self) -> tuple[float, float] | None:
        """USD per million input and output tokens: its ``price=IN,OUT``, 0 for a free
        provider that sets none, else None (see :func:`~lvlmbench.models.model_price`)."""
        given = self.spec.options.get(PRICE)
        if given is not None:
            return parse_price(given)
        return (0.0, 0.0) if self.free else None


def resolve_model(spec: str, providers: ProviderTable | None = None) -> ResolvedModel:
    """``spec`` parsed and checked once; RegistryError for a malformed spec, an unknown
    provider or an unknown/malformed option. ``providers``: the registry the spec names a
    provider of (default: the chat one)."""
    table = CHAT_PROVIDERS if providers is None else providers
    parsed, options = resolved_options(spec, table, {})
    provider = table[parsed.provider]
    canonical = ModelSpec(parsed.provider, parsed.name, options)
    return ResolvedModel(canonical, identity_of(parsed, provider, options), provider.free)


def resolve_spec(spec: str, providers: ProviderTable | None = None) -> str:
    """The identity of ``spec`` (see :func:`model_identity`), raising RegistryError for a
    spec that is malformed, names an unknown provider or takes an unknown/malformed option.
    ``providers``: the registry the spec names a provider of (default: the chat one)."""
    return resolve_model(spec, providers).identity


def model_identity(spec: str, providers: ProviderTable | None = None) -> str:
    """The name a model's rows are stored under: ``provider/name`` plus the output-changing
    options not at their default (endpoint after environment defaults, ``max_tokens``,
    ``revision``...), sorted, as ``provider/name?k=v&k=v``. Secrets, timeouts, transport
    options and the ``price`` are left out. Replicas (``base_url=URL1,URL2``) are one model:
    named by ``deployment=NAME`` when given (whatever URLs serve it), else by their first URL
    (so a replica appended later keeps the identity). A string that is not a provider spec (an
    imported player such as ``llava-7b``, ``reference``, ``human:...``, ``submission/x``) is
    returned unchanged; a provider spec with an unknown or malformed option raises
    RegistryError. ``providers``: as for :func:`resolve_spec`."""
    providers = CHAT_PROVIDERS if providers is None else providers
    provider, sep, name = spec.partition("?")[0].partition("/")
    entry = providers.get(provider)
    if entry is None or (not sep and not entry.nameless) or (sep and not name):
        return spec
    return resolve_spec(spec, providers)


def spec_option(spec: str, name: str, providers: ProviderTable | None = None) -> str | None:
    """The canonical value of option ``name`` in ``spec`` (environment defaults applied), None
    when unset; RegistryError for a spec that does not resolve. ``providers``: as for
    :func:`resolve_spec`."""
    return resolve_model(spec, providers).spec.options.get(name)


def model_price(spec: str) -> tuple[float, float] | None:
    """The ``price=IN,OUT`` of a chat spec (USD per million input and output tokens); for a
    free provider's spec (``baseline/…``) that sets none, 0; otherwise None when it sets none.
    RegistryError for a spec that does not resolve."""
    return resolve_model(spec).price


def generation_options(spec: str) -> dict[str, str]:
    """The generation settings a chat spec carries (``temperature``, ``top_p``, ``seed``,
    ``max_tokens``, ``system``, ``param.*``), canonical, the system prompt in full; the
    :class:`~lvlmbench.models.ModelClient` applies them to every call of the model."""
    return dict(resolve_model(spec).generation)
