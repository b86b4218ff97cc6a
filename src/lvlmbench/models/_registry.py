"""``provider/name`` strings to model objects, importing each back-end only when asked for.

A spec is ``provider/name`` optionally followed by ``?key=value&key=value`` options, e.g.
``openai/gemma-3-270m?base_url=http://127.0.0.1:8080/v1``. Options may also be passed as keyword
arguments; those win over the ones in the string. Every option is checked against the
provider's table (:mod:`lvlmbench.models._options`) before anything is built.

A model's identity (:func:`model_identity`, also the loaded model's ``spec``) is what responses,
judgments and cache rows are stored under: ``provider/name`` plus the output-changing options
that are not at their default, so one model name on two endpoints is two examinees. Every chat
provider also takes ``price=IN,OUT`` (USD per million input and output tokens): what the client
prices its calls at, never part of the identity.

Providers are registered, never looked for: the built-in ones of this package are named by
module (imported on first use, so an extra's absence only matters when its provider is used);
a package above ``models`` hands its factory in with :func:`register_chat_provider` when it
is imported, so the registry never imports upwards. Text-to-image providers have their own
registry in :mod:`lvlmbench.images` (a :data:`ProviderTable` used with :func:`load_model`).
A provider may be *declared* here (name and options, so identities and option checks never
depend on what was imported) and implemented above: ``baseline/...`` is declared here and
implemented by :mod:`lvlmbench.baselines`, which :mod:`lvlmbench.runner` imports (so the CLI,
:mod:`lvlmbench.api` and everything that runs examinees has it). Loading a declared provider
whose package was not imported raises RegistryError naming the package to import.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from lvlmbench.models._options import (
    ANTHROPIC_OPTIONS,
    ANTHROPIC_PARAMS,
    BASELINE_OPTIONS,
    BASELINE_PARAMS,
    GENERATION_OPTIONS,
    GOOGLE_CHAT_OPTIONS,
    GOOGLE_CHAT_PARAMS,
    HF_OPTIONS,
    HF_PARAMS,
    OPENAI_CHAT_OPTIONS,
    OPENAI_CHAT_PARAMS,
    PARAM_PREFIX,
    PRICE,
    PRICE_OPTION,
    Option,
    OptionError,
    normalise_option,
    param_option,
)
from lvlmbench.models._params import ParamRules, looks_like_credential, masked_spec
from lvlmbench.models._secrets import mask_url_credentials, register_url_credentials
from lvlmbench.registry import Registry

if TYPE_CHECKING:
    pass

__all__ = [
    "CHAT_PROVIDERS",
    "ModelSpec",
    "Provider",
    "ProviderTable",
    "RegistryError",
    "parse_spec",
    "register_chat_provider",
]


ProviderFactory = Callable[[str, Mapping[str, str]], Any]
"""``factory(name, options)``: the model for ``provider/name`` with canonical options."""


class RegistryError(ValueError):
    """A spec that names no known provider, an option it does not take or a malformed value,
    or a provider whose extra is not installed. The message, which quotes the spec, shows no
    password written into a URL of it."""

    def __init__(self, message: str) -> None:
        super().__init__(mask_url_credentials(message))


@dataclass(frozen=True)
class Provider:
    """One provider of a registry: the module that builds its models (``create(name,
    options)``) or its registered factory, the extra it needs and the options it takes."""

    module: str | None
    """Module whose ``create(name, options)`` builds the model, imported on first use (None:
    the provider is registered with a factory, or only declared)."""
    extra: str | None
    """pip extra that brings this provider's dependencies (None: core)."""
    options: Mapping[str, Option] = field(default_factory=dict)
    """Every option the provider takes; anything else is refused."""
    name_prefix: str = ""
    """A prefix of the model name that names nothing (``google/models/x`` is ``google/x``)."""
    nameless: bool = False
    """One model with no name: the spec is the provider alone (``procedural``), and a name
    after a slash is a label the identity leaves out."""
    factory: ProviderFactory | None = None
    """The registered factory (see :func:`register_chat_provider`)."""
    provided_by: str | None = None
    """For a declared provider: the package whose import registers its factory."""
    params: ParamRules = field(default_factory=ParamRules)
    """Which ``param.<field>`` options it refuses (fields its client builds or checks itself)
    and where its key goes; a param that looks like a credential is refused by every one."""
    free: bool = False
    """Its calls cost nothing (no endpoint, no tokens): its price is 0 unless a spec says."""

    @property
    def env_defaults(self) -> dict[str, str]:
        """option -> environment variable consulted when the option is not given."""
        return {name: o.env for name, o in self.options.items() if o.env}

    @property
    def chat(self) -> bool:
        """Whether this is a chat provider (one taking ``temperature``)."""
        return "temperature" in self.options

    def option(self, name: str) -> Option | None:
        """The option ``name``, or None when the provider does not take it. A chat provider
        takes any ``param.<field>`` and a ``price`` too."""
        found = self.options.get(name)
        if found is None and name.startswith(PARAM_PREFIX) and self.chat:
            return param_option() if len(name) > len(PARAM_PREFIX) else None
        if found is None and name == PRICE and self.chat:
            return PRICE_OPTION
        return found


CHAT_PROVIDERS: Registry[Provider] = Registry("chat provider")
"""Chat providers by name: ``CHAT_PROVIDERS.add(name, Provider(...))`` declares one (its
module is imported only when a spec names it); :func:`register_chat_provider` gives a declared
or new name a factory from a package above ``models``."""
_BUILTIN_CHAT: dict[str, Provider] = {
    "openai": Provider(
        "lvlmbench.models.openai", None, OPENAI_CHAT_OPTIONS, params=OPENAI_CHAT_PARAMS
    ),
    "anthropic": Provider(
        "lvlmbench.models.anthropic", None, ANTHROPIC_OPTIONS, params=ANTHROPIC_PARAMS
    ),
    "google": Provider(
        "lvlmbench.models.google", None, GOOGLE_CHAT_OPTIONS, "models/", params=GOOGLE_CHAT_PARAMS
    ),
    "hf": Provider("lvlmbench.models.hf", "hf", HF_OPTIONS, params=HF_PARAMS),
    # Declared only: the baselines read the benchmark's choice prompts, so they live above
    # models, in lvlmbench.baselines, which registers the factory when imported.
    "baseline": Provider(
        None,
        None,
        BASELINE_OPTIONS,
        provided_by="lvlmbench.baselines",
        params=BASELINE_PARAMS,
        free=True,
    ),
}
for _name, _provider in _BUILTIN_CHAT.items():
    CHAT_PROVIDERS.add(_name, _provider)
ProviderTable = Mapping[str, Provider]
"""A registry: provider name -> :class:`Provider` (``CHAT_PROVIDERS``; ``lvlmbench.images``
keeps the text-to-image one)."""


def _register(
    providers: Registry[Provider],
    kind: str,
    name: str,
    factory: ProviderFactory,
    extra: str | None,
    options: Mapping[str, Option] | None,
) -> None:
    known = providers.get(name)
    if known is not None and known.factory is not None and _same(known.factory, factory):
        return  # the registering module was imported again (importlib.reload): nothing new
    if known is not None and (known.module is not None or known.factory is not None):
        raise RegistryError(f"{kind} provider {name!r} is already registered")
    if known is not None and options is not None and dict(options) != dict(known.options):
        # Identities were computed from the declared table: another table would change them.
        raise RegistryError(f"{kind} provider {name!r}: options differ from its declaration")
    if known is not None:
        updated = replace(known, factory=factory, extra=extra or known.extra)
        providers.add(name, updated, replace=True)
    else:
        providers.add(name, Provider(None, extra, dict(options or {}), factory=factory))


def _same(a: ProviderFactory, b: ProviderFactory) -> bool:
    where = ("__module__", "__qualname__")
    return a is b or [getattr(a, w, a) for w in where] == [getattr(b, w, b) for w in where]


def register_chat_provider(
    name: str,
    factory: ProviderFactory,
    *,
    extra: str | None = None,
    options: Mapping[str, Option] | None = None,
) -> None:
    """Make ``name/...`` specs load through ``factory(model_name, canonical_options)``.

    Called by a package above ``models`` when it is imported (``lvlmbench.baselines`` registers
    ``baseline``). A provider declared in this module keeps its declared option table
    (``options`` may be left out, or must equal it); registering a name that already has a
    different implementation raises RegistryError, registering the same factory again is a
    no-op. ``extra`` is the pip extra that brings the provider's dependencies (recorded with
    it; a missing one already fails the registering package's own import)."""
    _register(CHAT_PROVIDERS, "chat", name, factory, extra, options)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``provider/name?options`` string."""

    provider: str
    name: str
    options: Mapping[str, str]

    @property
    def label(self) -> str:
        """``provider/name``, the options left out (no endpoint, no prompt digest)."""
        return (
            f"{self.provider}/{self.name}"
            if self.provider and self.name
            else self.provider or self.name
        )

    @classmethod
    def read(cls, identity: str) -> ModelSpec:
        """An identity read back from the store, split as written and checked against no
        registry (it was when stored): a player that is no spec (``llava-7b``) is all name."""
        base, _, query = identity.partition("?")
        provider, sep, name = base.partition("/")
        options = dict(parse_qsl(query, keep_blank_values=True))
        return cls(provider, name, options) if sep else cls("", base, options)


def _split_options(spec: str, query: str) -> dict[str, str]:
    # Credentials written into a base_url are secrets from the moment the spec is read: every
    # message, log line or progress label that quotes the spec masks them.
    register_url_credentials(spec)
    shown = masked_spec(spec)
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True) if query else []
    except ValueError:
        raise RegistryError(
            f"model spec {shown!r}: options must be key=value pairs joined by '&' "
            "(e.g. openai/m?base_url=http://127.0.0.1:8000/v1&max_tokens=256)"
        ) from None
    options: dict[str, str] = {}
    for key, value in pairs:
        if key in options:
            raise RegistryError(f"model spec {shown!r}: option {key!r} is given twice")
        options[key] = value
    return options


def parse_spec(spec: str, providers: Mapping[str, Any] | None = None) -> ModelSpec:
    """Split a spec into provider, name and options; raise RegistryError when malformed or
    when an option is one the provider does not take or has a malformed value."""
    known = providers if providers is not None else CHAT_PROVIDERS
    base, _, query = spec.partition("?")
    provider, sep, name = base.partition("/")
    entry = known.get(provider)
    if not sep and isinstance(entry, Provider) and entry.nameless:
        return ModelSpec(provider, "", _checked(spec, provider, known, _split_options(spec, query)))
    if not sep or not provider or not name:
        raise RegistryError(
            f"model spec {masked_spec(spec)!r}: expected provider/name (e.g. openai/gpt-4o-mini); "
            f"providers: {', '.join(known)}"
        )
    if provider not in known:
        raise RegistryError(
            f"model spec {masked_spec(spec)!r}: unknown provider {provider!r}; "
            f"known: {', '.join(known)}"
        )
    return ModelSpec(provider, name, _checked(spec, provider, known, _split_options(spec, query)))


def _checked(
    spec: str, provider: str, known: Mapping[str, Any], options: dict[str, str]
) -> dict[str, str]:
    """``options`` as given, after checking each against the provider's table and its param
    rules. Messages show the spec with credential-looking values masked."""
    entry = known[provider]
    table: Mapping[str, Option] = entry.options if isinstance(entry, Provider) else {}
    rules = entry.params if isinstance(entry, Provider) else ParamRules()
    shown = masked_spec(spec)
    # First, whatever the order: a later message must not be the one to show a key.
    for key in options:
        if key not in table and looks_like_credential(key.removeprefix(PARAM_PREFIX)):
            raise RegistryError(f"model spec {shown!r}: {rules.credential_refusal(key)}")
    for key, value in options.items():
        option = entry.option(key) if isinstance(entry, Provider) else None
        if option is None:
            raise RegistryError(_unknown_option(shown, provider, key, table))
        if key.startswith(PARAM_PREFIX):
            refused = rules.refusal(provider, key.removeprefix(PARAM_PREFIX), value)
            if refused is not None:
                raise RegistryError(f"model spec {shown!r}: {refused}")
        try:
            normalise_option(key, option, value)
        except OptionError as exc:
            raise RegistryError(f"model spec {shown!r}: {exc}") from None
    return options


def _unknown_option(spec: str, provider: str, key: str, table: Mapping[str, Option]) -> str:
    message = f"model spec {spec!r}: unknown option {key!r} for {provider}/"
    chat = "temperature" in table
    close = difflib.get_close_matches(key, [*table, *([PRICE] if chat else [])], n=1)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    names = sorted(table) + ([f"{PARAM_PREFIX}<field>", f"{PRICE}=IN,OUT"] if chat else [])
    valid = ", ".join(names) if names else "none (it takes no options)"
    return f"{message}; valid options: {valid}"


def resolved_options(
    spec: str, providers: ProviderTable, overrides: Mapping[str, Any]
) -> tuple[ModelSpec, dict[str, str]]:
    """The parsed spec and its options in canonical form, keyword overrides and environment
    defaults (``OPENAI_BASE_URL``...) applied, every value checked."""
    parsed = parse_spec(spec, providers)
    provider = providers[parsed.provider]
    given = {k: str(v) for k, v in overrides.items() if v is not None}
    merged = {**parsed.options, **_checked(spec, parsed.provider, providers, given)}
    for name, option in provider.options.items():
        if name not in merged and option.env and os.environ.get(option.env):
            merged[name] = os.environ[option.env]
    for value in merged.values():  # a keyword or $OPENAI_BASE_URL may carry credentials too
        register_url_credentials(value)
    canonical: dict[str, str] = {}
    for name, value in merged.items():
        taken = provider.option(name)
        assert taken is not None  # every given option was checked above
        try:
            canonical[name] = normalise_option(name, taken, value)
        except OptionError as exc:
            from_env = name not in parsed.options and name not in given
            where = f" (from ${taken.env})" if from_env else ""
            raise RegistryError(f"model spec {masked_spec(spec)!r}: {exc}{where}") from None
    return parsed, canonical


def identity_of(parsed: ModelSpec, provider: Provider, options: Mapping[str, str]) -> str:
    if provider.nameless:  # one model: a label after the slash is ignored
        return parsed.provider
    base = f"{parsed.provider}/{parsed.name.removeprefix(provider.name_prefix)}"
    kept: list[tuple[str, str]] = []
    for name, value in sorted(options.items()):
        option = provider.option(name)
        if option is None or (option.superseded_by and option.superseded_by in options):
            continue
        if option.changes_output and value != option.default:
            kept.append((name, option.public(value) if option.public else value))
    return f"{base}?{urlencode(kept, safe=':/@')}" if kept else base


def generation_only(options: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in options.items()
        if name in GENERATION_OPTIONS or name.startswith(PARAM_PREFIX)
    }
