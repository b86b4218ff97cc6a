"""The text-to-image registry: ``provider/name`` strings to :class:`TextToImage` models.

The same spec grammar, option checking and identities as the chat registry
(:func:`lvlmbench.models.load_model` over this package's own provider table); each back-end
module is imported only when a spec asks for it. The providers that cost money per image take
``price=USD_PER_IMAGE``: what :class:`~lvlmbench.images.ImageClient` prices each render at, never
part of the identity or the cache key (the procedural renderer is free and takes none).
"""

from __future__ import annotations

from typing import Any, cast

from lvlmbench.images._api import TextToImage
from lvlmbench.models import PRICE, Provider, load_model, model_identity, spec_option
from lvlmbench.models.providers import DIFFUSERS_OPTIONS, OPENAI_IMAGE_OPTIONS, parse_image_price
from lvlmbench.registry import Registry

__all__ = ["IMAGE_PROVIDERS", "image_identity", "image_price", "load_image_model"]

IMAGE_PROVIDERS: Registry[Provider] = Registry("text-to-image provider")
"""Text-to-image providers by name: ``IMAGE_PROVIDERS.add(name, Provider(...))`` declares one."""
for _name, _provider in (
    ("procedural", Provider("lvlmbench.images.procedural", None, nameless=True)),
    ("diffusers", Provider("lvlmbench.images.diffusers", "diffusers", DIFFUSERS_OPTIONS)),
    ("openai", Provider("lvlmbench.images.openai", None, OPENAI_IMAGE_OPTIONS)),
):
    IMAGE_PROVIDERS.add(_name, _provider)


def load_image_model(spec: str, **options: Any) -> TextToImage:
    """A TextToImage model for ``spec`` (``procedural`` needs no name), with the price its
    renders cost (``price_per_image``: USD, None when the spec gives none)."""
    model = load_model(spec, IMAGE_PROVIDERS, **options)
    given = options.get(PRICE)
    # The price is the client's (what a render costs); the provider never sees it.
    price = parse_image_price(str(given)) if given is not None else image_price(spec)
    model.price_per_image = price
    return cast(TextToImage, model)


def image_price(spec: str) -> float | None:
    """The ``price=USD_PER_IMAGE`` of a text-to-image spec, None when it gives none;
    RegistryError for a spec that does not resolve."""
    price = spec_option(spec, PRICE, IMAGE_PROVIDERS)
    return None if price is None else parse_image_price(price)


def image_identity(spec: str) -> str:
    """The name an image model's cache rows are stored under (see
    :func:`lvlmbench.models.model_identity`)."""
    return model_identity(spec, IMAGE_PROVIDERS)
