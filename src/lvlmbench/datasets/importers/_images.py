"""Reading the images a dataset row names: file paths, base64 (or data URLs), and URLs.

URLs are never downloaded (lvlmbench runs offline): they are returned as such, and the importer
records them in the item's ``meta["image_urls"]`` so that evaluating the item fails with a reason
naming the URL instead of asking the examinee without its image.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from lvlmbench.datasets.importers._common import Row, parse_list

__all__ = ["ResolvedImages", "check_image", "is_url", "resolve_images"]

_URL = re.compile(r"^(https?|ftp)://", re.IGNORECASE)
_BASE64 = re.compile(r"^[A-Za-z0-9+/=_-]+$")
_MAX_PATH = 1024


@dataclass
class ResolvedImages:
    """Images of one row, in order: encoded bytes read now, URLs left for the user to fetch."""

    images: list[bytes] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    """Where each image came from (path, "base64" or the URL), for the item's meta."""


def is_url(value: str) -> bool:
    """Whether ``value`` is a web address (never fetched)."""
    return bool(_URL.match(value.strip()))


def check_image(data: bytes) -> str | None:
    """None when ``data`` decodes as an image, else why not."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except UnidentifiedImageError:
        return "not a known image format (expected PNG, JPEG, GIF, WebP, BMP...)"
    except (OSError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _decode_base64(text: str) -> bytes | None:
    compact = "".join(text.split())
    if len(compact) < 16 or not _BASE64.match(compact):
        return None
    try:
        if "-" in compact or "_" in compact:
            return base64.urlsafe_b64decode(compact + "=" * (-len(compact) % 4))
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _as_path(value: str, base_dir: Path) -> Path | None:
    if len(value) > _MAX_PATH or "\n" in value:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    try:
        return path if path.is_file() else None
    except OSError:
        return None


def _one_image(value: str, row: Row, column: str, base_dir: Path, found: ResolvedImages) -> None:
    if is_url(value):
        found.urls.append(value)
        found.sources.append(value)
        return
    data: bytes | None
    if value.startswith("data:"):
        _, _, payload = value.partition(",")
        data = _decode_base64(payload)
        source = "base64"
    elif (path := _as_path(value, base_dir)) is not None:
        data = path.read_bytes()
        source = value
    elif "." in value or "\\" in value:  # base64 has neither: a file name that is not there
        missing = Path(value) if Path(value).is_absolute() else base_dir / value
        raise row.error(f"image file not found: {missing}", column)
    else:
        data = _decode_base64(value)
        source = "base64"
    if data is None:
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise row.error(
            f"expected an image file path (relative to {base_dir}), a URL or base64 image "
            f"data; {shown!r} is none of these",
            column,
        )
    problem = check_image(data)
    if problem is not None:
        what = "file" if source != "base64" else "base64 data"
        raise row.error(f"the {what} is not a readable image: {problem}", column)
    found.images.append(data)
    found.sources.append(source)


def resolve_images(
    row: Row, columns: list[str], base_dir: Path, found: ResolvedImages | None = None
) -> ResolvedImages:
    """Read the images named in ``columns`` of ``row`` (each cell one image or a list of them);
    DatasetError naming the row and column for a value that is no image."""
    found = found if found is not None else ResolvedImages()
    for column in columns:
        cell = row.get(column)
        if not cell:
            continue
        values = parse_list(cell)
        for value in values if values is not None else [cell]:
            _one_image(value, row, column, base_dir, found)
    return found
