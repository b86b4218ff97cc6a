"""Reading the images a dataset row names: file paths, base64 (or data URLs), and URLs.

URLs are never downloaded (lvlmbench runs offline). With ``--image-root DIR`` a URL or a file
name is looked up by its file name in DIR (and its subfolders), so images downloaded once are
read from there. A URL that is still not found is returned as such, and the importer records it
in the item's ``meta["image_urls"]``; a bare file name that is nowhere to be found (LLaVA-Bench
and MME name their pictures, they do not ship them in the file) goes to
``meta["missing_images"]``. Evaluating such an item fails with a reason naming what to download
instead of asking the examinee without its image.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lvlmbench.datasets.importers._common import DatasetError, Row, parse_list

__all__ = ["ImageRoot", "ResolvedImages", "check_image", "image_name", "is_url", "resolve_images"]

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
    missing: list[str] = field(default_factory=list)
    """Bare file names found neither beside the file nor under the image root."""
    from_root: int = 0
    """Images read from the ``--image-root`` folder."""
    aliases: list[str] = field(default_factory=list)
    """URLs/names of a picture another column already gave (VisIT's ``image`` and
    ``image_url``), kept for joins but not read twice."""


def image_name(url_or_path: str) -> str:
    """The file name a URL or path names ("https://x/a/b.jpg?v=1" -> "b.jpg"), for matching
    the same picture written as a URL in one file and a file name in another."""
    text = url_or_path.strip()
    if "://" in text:
        text = unquote(urlsplit(text).path)
    return text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


class ImageRoot:
    """The ``--image-root`` folder: image files found by file name, in it or any subfolder
    (indexed once, on first use; where two subfolders hold the same name the first in sorted
    order wins)."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise DatasetError(root, "--image-root: expected a folder of downloaded images")
        self.root = root
        self._files: dict[str, Path] | None = None

    def find(self, value: str) -> Path | None:
        """The file ``value`` (a URL, a path or a file name) names under the root, if any."""
        if not is_url(value):
            direct = self.root / value
            try:
                if direct.is_file():
                    return direct
            except OSError:
                pass
        if self._files is None:
            self._files = {}
            for path in sorted(self.root.rglob("*")):
                if path.is_file():
                    self._files.setdefault(path.name, path)
        return self._files.get(image_name(value))


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


def _from_root(value: str, root: ImageRoot | None, found: ResolvedImages) -> bytes | None:
    local = root.find(value) if root is not None and _names_picture(value) else None
    if local is None:
        return None
    found.from_root += 1
    return local.read_bytes()


def _one_image(
    value: str,
    row: Row,
    column: str,
    base_dir: Path,
    found: ResolvedImages,
    root: ImageRoot | None = None,
) -> None:
    data: bytes | None
    source = value
    if is_url(value):
        data = _from_root(value, root, found)
        if data is None:
            found.urls.append(value)
            found.sources.append(value)
            return
    elif value.startswith("data:"):
        _, _, payload = value.partition(",")
        data = _decode_base64(payload)
        source = "base64"
    elif (path := _as_path(value, base_dir)) is not None:
        data = path.read_bytes()
    elif (data := _from_root(value, root, found)) is not None:
        pass
    elif "." in value or "\\" in value:  # base64 has neither: a file name that is not there
        if "/" not in value and "\\" not in value:  # a bare name: the user downloads it
            found.missing.append(value)
            found.sources.append(value)
            return
        missing = Path(value) if Path(value).is_absolute() else base_dir / value
        where = f" (nor by name under {root.root})" if root is not None else ""
        raise row.error(f"image file not found: {missing}{where}", column)
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
    row: Row,
    columns: list[str],
    base_dir: Path,
    found: ResolvedImages | None = None,
    root: ImageRoot | None = None,
) -> ResolvedImages:
    """Read the images named in ``columns`` of ``row`` (each cell one image or a list of them),
    looking up URLs and file names under ``root`` too; DatasetError naming the row and column
    for a value that is no image."""
    found = found if found is not None else ResolvedImages()
    for column in columns:
        cell = row.get(column)
        if not cell:
            continue
        values = parse_list(cell)
        named = {image_name(s) for s in found.sources if s != "base64"}
        for value in values if values is not None else [cell]:
            if _names_picture(value) and image_name(value) in named:
                found.aliases.append(value)  # the same picture under another column
                continue
            _one_image(value, row, column, base_dir, found, root)
    return found


def _names_picture(value: str) -> bool:
    """Whether ``value`` is a URL or file path (not inline image data)."""
    if value.startswith("data:"):
        return False
    return is_url(value) or (len(value) <= _MAX_PATH and "." in value)  # base64 has no "."
