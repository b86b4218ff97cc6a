"""Composing several images into one, for examinees that take a single image (TouchStone:
multi-image inputs are concatenated)."""

from __future__ import annotations

import io

__all__ = ["concatenate"]


def concatenate(
    images: list[bytes],
    *,
    gap: int = 16,
    background: tuple[int, int, int] = (255, 255, 255),
    max_width: int = 4096,
    max_height: int = 2048,
) -> bytes:
    """The images side by side, left to right, as one PNG.

    Each image is centred vertically on a ``background`` canvas as tall as the tallest one,
    with ``gap`` pixels between neighbours; the result is scaled down (aspect kept) to fit
    ``max_width`` x ``max_height``. Raises ValueError for an empty list or unreadable bytes.
    """
    from PIL import Image, UnidentifiedImageError

    if not images:
        raise ValueError("concatenate needs at least one image")
    if max_width < 1 or max_height < 1 or gap < 0:
        raise ValueError("max_width and max_height must be positive and gap not negative")
    frames = []
    for index, data in enumerate(images):
        try:
            with Image.open(io.BytesIO(data)) as image:
                frames.append(image.convert("RGB"))
        except (UnidentifiedImageError, OSError) as exc:
            raise ValueError(f"image {index} is not readable: {exc}") from None
    width = sum(f.width for f in frames) + gap * (len(frames) - 1)
    height = max(f.height for f in frames)
    canvas = Image.new("RGB", (width, height), background)
    x = 0
    for frame in frames:
        canvas.paste(frame, (x, (height - frame.height) // 2))
        x += frame.width + gap
    scale = min(1.0, max_width / width, max_height / height)
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        canvas = canvas.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    canvas.save(buffer, format="PNG")
    return buffer.getvalue()
