"""The renderer's own PNG writer: any reader gets the image's exact pixels back, the same
pixels always give the same bytes, and an image it cannot write is refused by name."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from lvlmbench.scenes import ProceduralExaminer, render, render_png
from lvlmbench.scenes._png import encode_png


def _noise(mode: str, size: tuple[int, int], seed: int) -> Image.Image:
    bands = len(mode)
    pixels = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], bands), np.uint8)
    return Image.fromarray(pixels[..., 0] if bands == 1 else pixels, mode)


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
@pytest.mark.parametrize("size", [(1, 1), (7, 3), (64, 65)])
def test_pillow_reads_back_the_exact_pixels(mode: str, size: tuple[int, int]) -> None:
    image = _noise(mode, size, seed=size[0])
    data = encode_png(image)
    back = Image.open(io.BytesIO(data))
    back.verify()  # every chunk's CRC, as a strict reader checks them
    back = Image.open(io.BytesIO(data))
    assert back.format == "PNG" and back.mode == mode and back.size == size
    assert back.tobytes() == image.tobytes()


def test_a_mode_it_cannot_write_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="cannot write a P image"):
        encode_png(Image.new("P", (4, 4)))


def test_a_rendered_scene_round_trips_and_is_stable() -> None:
    sample = ProceduralExaminer().sample(
        "spatial understanding", "depth and occlusion", "front of a stack", "hard", 3
    )
    data = render_png(sample.program, 128, 128)
    assert data == render_png(sample.program, 128, 128)
    decoded = Image.open(io.BytesIO(data))
    assert decoded.tobytes() == render(sample.program, 128, 128).tobytes()
    # Unfiltered rows: each of the 128 starts with filter type 0 (what keeps decoding cheap).
    idat = data[data.index(b"IDAT") + 4 : data.index(b"IEND") - 8]
    raw = zlib.decompress(idat)
    stride = 128 * 3 + 1
    assert len(raw) == 128 * stride and all(raw[row * stride] == 0 for row in range(128))
