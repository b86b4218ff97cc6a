"""Small one-colour pictures for tests that store, send or price an image (one helper here
instead of a copy in each test file)."""

from __future__ import annotations

import io

from PIL import Image

__all__ = ["marked_image", "solid_image", "solid_png"]


def solid_image(
    colour: str | tuple[int, int, int],
    size: tuple[int, int] = (8, 8),
    fmt: str = "PNG",
    **save_options: int,
) -> bytes:
    """An RGB picture of ``size`` pixels, all ``colour``, encoded as ``fmt`` (PNG, JPEG, GIF,
    BMP, ...) with Pillow's ``save_options`` (``quality=90``)."""
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format=fmt, **save_options)
    return buffer.getvalue()


def solid_png(colour: str | tuple[int, int, int], size: tuple[int, int] = (8, 8)) -> bytes:
    """The PNG bytes of an RGB picture of ``size`` pixels, all ``colour``."""
    return solid_image(colour, size)


def marked_image(
    colour: str | tuple[int, int, int], size: tuple[int, int] = (8, 6), fmt: str = "PNG"
) -> bytes:
    """:func:`solid_image` but one pixel, (1, 1), is (1, 2, 3): not a flat colour, so a pixel
    comparison after a round trip (a re-encoding, a crop) means something."""
    image = Image.new("RGB", size, colour)
    image.putpixel((1, 1), (1, 2, 3))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()
