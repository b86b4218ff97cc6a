"""Fixtures for the dataset importer tests: a fresh store and small encoded images."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from lvlmbench.store import Store

COLOURS = {"red": (255, 0, 0), "blue": (0, 0, 255), "green": (0, 255, 0), "grey": (90, 90, 90)}


def encode(colour: str, size: tuple[int, int] = (8, 6), fmt: str = "PNG") -> bytes:
    """A small image that is not a flat colour, encoded as ``fmt``."""
    image = Image.new("RGB", size, COLOURS[colour])
    image.putpixel((1, 1), (1, 2, 3))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "s.db"))
    yield opened
    opened.close()


@pytest.fixture
def png() -> Callable[..., bytes]:
    return encode


@pytest.fixture
def b64() -> Callable[[str], str]:
    return lambda colour: base64.b64encode(encode(colour)).decode()
