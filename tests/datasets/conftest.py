"""Fixtures for the dataset importer tests: a fresh store and small encoded images."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pngs import marked_image

from lvlmbench.store import Store

COLOURS = {"red": (255, 0, 0), "blue": (0, 0, 255), "green": (0, 255, 0), "grey": (90, 90, 90)}


def encode(colour: str, size: tuple[int, int] = (8, 6), fmt: str = "PNG") -> bytes:
    """A small image of a colour named in COLOURS that is not a flat colour, as ``fmt``."""
    return marked_image(COLOURS[colour], size, fmt)


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
