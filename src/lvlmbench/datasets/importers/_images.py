"""Reading the images a dataset row names: file paths, base64 (or data URLs), and URLs.

URLs are never downloaded (lvlmbench runs offline). With ``--image-root DIR`` a URL or a file
name is looked up by its file name in DIR (and its subfolders), so images downloaded once are
read from there. A URL that is still not found is returned as such, and the importer records it
in the item's ``meta["image_urls"]``; a bare file name that is nowhere to be found (LLaVA-Bench
and MME name their pictures, they do not ship them in the file) goes to
``meta["missing_images"]``. Evaluating such an item fails with a reason naming what to download
instead of asking the examinee without its image.

A dataset file is untrusted input: an image path in it is read only when it lies under the
file's own folder or under ``--image-root`` (``../secret.png``, absolute paths and symlinks that
lead out count as outside) unless the user passes ``--allow-images-outside``
(:class:`ImageAccess`). ``--image-root`` may not be a system folder (``/``, ``/proc``, ...),
and its search stops with a clear error past :data:`MAX_ROOT_ENTRIES` files and folders.

An image named by many rows (a JSONL whose rows share a picture) is read and checked once:
the bytes of recently read files and the verdicts on recently checked images are kept, within
a fixed budget, by the per-import :class:`ImageAccess`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, Row, parse_list
from lvlmbench.datasets.importers._image_root import (
    MAX_ROOT_ENTRIES,
    ImageRoot,
    image_name,
    inside,
    is_url,
)

__all__ = [
    "MAX_ROOT_ENTRIES",
    "ImageAccess",
    "ImageRoot",
    "ResolvedImages",
    "check_image",
    "image_name",
    "is_url",
    "resolve_images",
    "resolve_values",
]

_BASE64 = re.compile(r"^[A-Za-z0-9+/=_-]+$")
_MAX_PATH = 1024

_CACHED_BYTES = 64 << 20  # file bytes kept for rows that name the same picture again
_CACHED_VERDICTS = 4096  # images whose check passed, by hash


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


class ImageAccess:
    """Where one import may read pictures from, and what it remembers of them.

    ``folder`` is the dataset file's folder; paths must resolve into it or into ``root`` (the
    ``--image-root``) unless ``allow_outside``. Bytes of files read recently and hashes of
    images checked recently are kept (bounded), so rows naming one picture read it once."""

    def __init__(
        self, folder: Path, root: ImageRoot | None = None, *, allow_outside: bool = False
    ) -> None:
        self.folder = folder.resolve()
        self.root = root
        self.allow_outside = allow_outside
        self._bytes: OrderedDict[Path, bytes] = OrderedDict()
        self._cached = 0
        self._good: OrderedDict[bytes, None] = OrderedDict()
        self._lookups: OrderedDict[tuple[Path, str], _Lookup] = OrderedDict()
        self.validated = False
        """Set once every row passed validation: the writing pass does not decode the same
        pictures again (a photo's decode costs milliseconds)."""

    def allows(self, path: Path) -> bool:
        """Whether reading ``path`` is allowed: it resolves (links and ``..`` followed) into
        the dataset's folder or the image root, or anything is allowed."""
        if self.allow_outside:
            return True
        roots = [self.folder] + ([self.root.resolved] if self.root is not None else [])
        return any(inside(path, folder) for folder in roots)

    def lookup(self, value: str, base_dir: Path) -> _Lookup:
        """Where the path or name ``value`` (relative to ``base_dir``) leads: remembered, so
        rows naming one picture resolve its path once."""
        key = (base_dir, value)
        found = self._lookups.get(key)
        if found is None:
            found = self._lookups[key] = _look_up(value, base_dir, self)
            if len(self._lookups) > _CACHED_VERDICTS:
                self._lookups.popitem(last=False)
        else:
            self._lookups.move_to_end(key)
        return found

    def where(self) -> str:
        """The allowed folders, for messages."""
        extra = f" or --image-root {self.root.root}" if self.root is not None else ""
        return f"{self.folder}{extra}"

    def read(self, path: Path) -> bytes:
        """The bytes of the file at ``path`` (from memory when read recently: an import reads
        files that do not change while it runs)."""
        key = path
        data = self._bytes.get(key)
        if data is not None:
            self._bytes.move_to_end(key)
            return data
        data = path.read_bytes()
        if len(data) <= _CACHED_BYTES // 8:
            self._bytes[key] = data
            self._cached += len(data)
            while self._cached > _CACHED_BYTES:
                _, dropped = self._bytes.popitem(last=False)
                self._cached -= len(dropped)
        return data

    def check(self, data: bytes) -> str | None:
        """:func:`check_image`, answered from memory for an image that passed recently (or
        for every image once the file is :attr:`validated`)."""
        if self.validated:
            return None
        digest = hashlib.sha256(data).digest()
        if digest in self._good:
            self._good.move_to_end(digest)
            return None
        problem = check_image(data)
        if problem is None:
            self._good[digest] = None
            if len(self._good) > _CACHED_VERDICTS:
                self._good.popitem(last=False)
        return problem


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


def _outside(row: Row, column: str, value: str, access: ImageAccess) -> DatasetError:
    return row.error(
        f"image path {value[:300]!r} lies outside {access.where()} (links and '..' followed); "
        "a dataset's pictures are read only from its folder: pass --allow-images-outside for "
        "a file you trust",
        column,
    )


@dataclass(frozen=True)
class _Lookup:
    """Where a path or file name in a row leads: a file that may be read (and whether it was
    found under the image root), or a file outside what may be read (``outside``: the path
    to name in the error), or nothing."""

    path: Path | None = None
    from_root: bool = False
    outside: str | None = None


def _look_up(value: str, base_dir: Path, access: ImageAccess) -> _Lookup:
    """The path itself where it may be read, else the same name under the image root; a file
    that exists only outside (or a link under the root leading out) is ``outside``."""
    direct = None if is_url(value) else _as_path(value, base_dir)
    if direct is not None and access.allows(direct):
        return _Lookup(direct)
    root = access.root
    local = root.find(value) if root is not None and _names_picture(value) else None
    if local is not None:
        if not access.allows(local):  # a link under the root leading out
            return _Lookup(outside=f"{local} -> {local.resolve()}")
        return _Lookup(local, from_root=True)
    return _Lookup(outside=value) if direct is not None else _Lookup()


def _local_file(
    value: str, row: Row, column: str, base_dir: Path, found: ResolvedImages, access: ImageAccess
) -> Path | None:
    """The file a path or name in the row stands for, if any; DatasetError when the only file
    it leads to lies outside what may be read."""
    if len(value) > _MAX_PATH or value.startswith("data:") or _plain_base64(value):
        return None  # image data, not a file name: no disk lookup for it
    lookup = access.lookup(value, base_dir)
    if lookup.outside is not None:
        raise _outside(row, column, lookup.outside, access)
    found.from_root += lookup.from_root
    return lookup.path


def _one_image(
    value: str, row: Row, column: str, base_dir: Path, found: ResolvedImages, access: ImageAccess
) -> None:
    data: bytes | None = None
    source = value
    if value.startswith("data:"):
        _, _, payload = value.partition(",")
        data, source = _decode_base64(payload), "base64"
    elif (local := _local_file(value, row, column, base_dir, found, access)) is not None:
        data = access.read(local)
    elif is_url(value):
        found.urls.append(value)
        found.sources.append(value)
        return
    elif "." in value or "\\" in value:  # base64 has neither: a file name that is not there
        if "/" not in value and "\\" not in value:  # a bare name: the user downloads it
            found.missing.append(value)
            found.sources.append(value)
            return
        missing = Path(value) if Path(value).is_absolute() else base_dir / value
        where = f" (nor by name under {access.root.root})" if access.root is not None else ""
        raise row.error(f"image file not found: {missing}{where}", column)
    else:
        data, source = _decode_base64(value), "base64"
    if data is None:
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise row.error(
            f"expected an image file path (relative to {base_dir}), a URL or base64 image "
            f"data; {shown!r} is none of these",
            column,
        )
    problem = access.check(data)
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
    access: ImageAccess | None = None,
) -> ResolvedImages:
    """Read the images named in ``columns`` of ``row`` (each cell one image or a list of them),
    paths relative to ``base_dir``, URLs and file names also looked up under ``access.root``;
    DatasetError naming the row and column for a value that is no image or lies outside what
    ``access`` allows (default: ``base_dir`` only)."""
    found = found if found is not None else ResolvedImages()
    access = access if access is not None else ImageAccess(base_dir)
    for column in columns:
        cell = row.get(column)
        if cell:
            values = parse_list(cell)
            resolve_values(row, column, values or [cell], base_dir, found, access)
    return found


def resolve_values(
    row: Row,
    column: str,
    values: list[str],
    base_dir: Path,
    found: ResolvedImages,
    access: ImageAccess,
) -> None:
    """:func:`resolve_images` for one column's values, already split (a JSON list)."""
    named = {image_name(s) for s in found.sources if s != "base64"} if found.sources else set()
    for value in values:
        if named and _names_picture(value) and image_name(value) in named:
            found.aliases.append(value)  # the same picture under another column
            continue
        _one_image(value, row, column, base_dir, found, access)


def _plain_base64(value: str) -> bool:
    """Whether ``value`` is long base64 with no dot: a picture's bytes, never a file name
    (those have an extension), so a base64 column is not looked up on disk row by row."""
    return len(value) >= 64 and "." not in value and _BASE64.match(value) is not None


def _names_picture(value: str) -> bool:
    """Whether ``value`` is a URL or file path (not inline image data)."""
    if value.startswith("data:"):
        return False
    return is_url(value) or (len(value) <= _MAX_PATH and "." in value)  # base64 has no "."
