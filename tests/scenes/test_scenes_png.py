"""The scenes' own PNG writer and the vectorised nearest-paint lookup: exact, not approximate."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from lvlmbench.scenes import ProceduralExaminer, render, render_png
from lvlmbench.scenes.palette import COLORS, nearest_color, nearest_rows
from lvlmbench.scenes.png import encode_png

EXAMINER = ProceduralExaminer()


def _decoded(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.mark.parametrize("seed", [1, 7])
def test_rendered_png_decodes_to_the_rendered_pixels(seed: int) -> None:
    sample = EXAMINER.sample("atmospheric understanding", "weather", "weather type", "hard", seed)
    drawn = render(sample.program, 200, 120)
    png = render_png(sample.program, 200, 120)
    decoded = _decoded(png)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (decoded.format, decoded.mode, decoded.size) == ("PNG", "RGB", (200, 120))
    assert decoded.tobytes() == drawn.tobytes()
    # Pillow's own encoding of the same pixels decodes to the same pixels: only bytes differ.
    buffer = io.BytesIO()
    drawn.save(buffer, format="PNG", compress_level=1)
    assert _decoded(buffer.getvalue()).tobytes() == decoded.tobytes()


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_every_supported_mode_round_trips(mode: str) -> None:
    values = np.random.default_rng(3).integers(0, 256, size=(5, 7, len(mode)), dtype=np.uint8)
    image = Image.fromarray(values.squeeze(axis=2) if mode == "L" else values, mode)
    decoded = _decoded(encode_png(image))
    assert decoded.mode == mode and decoded.tobytes() == image.tobytes()


def test_unsupported_mode_is_refused_with_what_was_expected() -> None:
    with pytest.raises(ValueError, match="mode 'P'; expected one of L, RGB, RGBA"):
        encode_png(Image.new("P", (4, 4)))


def test_chunks_carry_valid_checksums() -> None:
    """Strict readers check each chunk's CRC: IHDR, IDAT, IEND in order, every CRC right."""
    png = encode_png(Image.new("RGB", (3, 2), (10, 20, 30)))
    position, tags = 8, []
    while position < len(png):
        length = int.from_bytes(png[position : position + 4], "big")
        body = png[position + 4 : position + 8 + length]
        crc = int.from_bytes(png[position + 8 + length : position + 12 + length], "big")
        assert zlib.crc32(body) == crc
        tags.append(body[:4])
        position += 12 + length
    assert tags == [b"IHDR", b"IDAT", b"IEND"]


def test_nearest_rows_is_the_brute_force_argmin_ties_included() -> None:
    paints = np.array([*COLORS.values(), COLORS["red"]], dtype=np.int32)  # a tie
    pixels = np.random.default_rng(0).integers(0, 256, size=(40, 30, 3)).astype(np.int32)
    pixels[0, :3] = [COLORS["red"], (128, 128, 128), (0, 0, 0)]
    brute = ((pixels[:, :, None, :] - paints[None, None, :, :]) ** 2).sum(axis=3).argmin(axis=2)
    found = nearest_rows(pixels, paints)
    assert found.shape == (40, 30) and (found == brute).all()
    assert found[0, 0] == list(COLORS).index("red")  # the first of two equal rows
    names = list(COLORS)
    assert names[int(nearest_rows(pixels[5, 5], paints[:-1]))] == nearest_color(
        tuple(int(v) for v in pixels[5, 5])
    )
