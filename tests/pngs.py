"""Small one-colour PNG pictures for tests that store, send or price an image (one helper here
instead of a copy in each test file)."""

from __future__ import annotations

import io

from PIL import Image

__all__ = ["solid_png"]


def solid_png(colour: str | tuple[int, int, int], size: tuple[int, int] = (8, 8)) -> bytes:
    """The PNG bytes of an RGB picture of ``size`` pixels, all ``colour``."""
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()
