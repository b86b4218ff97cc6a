"""The text-to-image registry: ``provider/name`` strings to :class:`TextToImage` models.

The same spec grammar, option checking and identities as the chat registry
(:func:`lvlmbench.models.load_model` over this package's own provider table); each back-end
module is imported only when a spec asks for it.
"""

from __future__ import annotations

from typing import Any, cast

from lvlmbench.images._api import TextToImage
from lvlmbench.models import Provider, ProviderTable, load_model, model_identity
from lvlmbench.models.providers import DIFFUSERS_OPTIONS, OPENAI_IMAGE_OPTIONS

__all__ = ["IMAGE_PROVIDERS", "image_identity", "load_image_model"]

IMAGE_PROVIDERS: ProviderTable = {
    "procedural": Provider("lvlmbench.images.procedural", None, nameless=True),
    "diffusers": Provider("lvlmbench.images.diffusers", "diffusers", DIFFUSERS_OPTIONS),
    "openai": Provider("lvlmbench.images.openai", None, OPENAI_IMAGE_OPTIONS),
}


def load_image_model(spec: str, **options: Any) -> TextToImage:
    """A TextToImage model for ``spec`` (``procedural`` needs no name)."""
    return cast(TextToImage, load_model(spec, IMAGE_PROVIDERS, **options))


def image_identity(spec: str) -> str:
    """The name an image model's cache rows are stored under (see
    :func:`lvlmbench.models.model_identity`)."""
    return model_identity(spec, IMAGE_PROVIDERS)
