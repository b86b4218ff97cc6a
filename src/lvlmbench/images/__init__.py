"""Text-to-image back-ends behind one async interface, and the client every call goes through."""

from lvlmbench.images._api import ImageOutput, ImageRequest, TextToImage
from lvlmbench.images._client import ImageClient
from lvlmbench.images.compose import concatenate
from lvlmbench.models._registry import load_image_model

__all__ = [
    "ImageClient",
    "ImageOutput",
    "ImageRequest",
    "TextToImage",
    "concatenate",
    "load_image_model",
]
