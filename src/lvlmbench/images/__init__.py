"""Text-to-image back-ends behind one async interface, and the client every call goes through."""

from lvlmbench.images._api import ImageOutput, ImageRequest, PromptLength, TextToImage
from lvlmbench.images._client import ImageClient
from lvlmbench.images._registry import (
    IMAGE_PROVIDERS,
    image_identity,
    image_price,
    load_image_model,
)
from lvlmbench.images.compose import concatenate
from lvlmbench.images.sizes import check_image_size, image_size_problem

__all__ = [
    "IMAGE_PROVIDERS",
    "ImageClient",
    "ImageOutput",
    "ImageRequest",
    "PromptLength",
    "TextToImage",
    "check_image_size",
    "concatenate",
    "image_identity",
    "image_price",
    "image_size_problem",
    "load_image_model",
]
