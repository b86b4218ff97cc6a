"""The store's files: checks on a SQLite store file before anything opens it for writing,
read-only engines, and the content-addressed image files (how image bytes are stored, where).

SQLite happily opens a text file, a PNG or a half-copied database and only fails on the first
query, with a driver traceback and sometimes a ``-wal`` file already created beside it. These
checks read a few header bytes instead, so a wrong ``--store`` costs one clear line and leaves
the file exactly as it was.
"""

from __future__ import annotations

import io
import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine

__all__ = [
    "image_file",
    "image_meta",
    "read_only_engine",
    "sqlite_file_problem",
    "stored_form",
    "stored_images",
    "writable",
]

_MAGIC = b"SQLite format 3\x00"
_KNOWN = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a ZIP archive",
    b"%PDF": "a PDF document",
}


def sqlite_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a SQLite store, or None (a missing or empty file is fine: the
    store is created there)."""
    if path.is_dir():
        return f"{path} is a directory, expected a database file"
    if not path.exists():
        return None if path.parent.is_dir() else f"directory {path.parent} does not exist"
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if not header:
        return None
    if not header.startswith(_MAGIC):
        kind = next((name for magic, name in _KNOWN.items() if header.startswith(magic)), None)
        return f"{path} is {kind or 'not a SQLite database'}, expected a lvlmbench store"
    return _truncation(path, header)


def _truncation(path: Path, header: bytes) -> str | None:
    """A database shorter than the page count its header records (copied or downloaded only
    in part). The count is trusted only when SQLite marks it valid (bytes 92-95 equal the
    change counter at 24-27), as SQLite itself does."""
    if len(header) < 100:
        return f"{path} is truncated: {len(header)} bytes, shorter than a SQLite header"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if header[24:28] != header[92:96] or pages == 0:
        return None
    size = path.stat().st_size
    if size < page_size * pages:
        return (
            f"{path} is truncated: {size:,} bytes where its header records "
            f"{pages} pages of {page_size} ({page_size * pages:,} bytes)"
        )
    return None


def writable(path: Path) -> bool:
    """Whether this process may write the database file and create its journal beside it."""
    parent_ok = os.access(path.parent, os.W_OK | os.X_OK)
    return parent_ok and (not path.exists() or os.access(path, os.W_OK))


def read_only_engine(path: Path) -> Engine:
    """An engine that only reads ``path``: no tables created, no journal mode changed.

    Without a ``-wal`` file beside it nobody is writing the database and the file holds every
    committed row, so it is read as immutable: no ``-shm``/``-wal`` files are created either.
    With one, SQLite must read it (it may hold committed rows not yet copied back).
    """
    uri = path.resolve().as_uri() + "?mode=ro"
    if not path.with_name(path.name + "-wal").exists():
        uri += "&immutable=1"

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        connection.execute("PRAGMA query_only=1")
        return connection

    return create_engine("sqlite://", creator=connect)


# Formats kept byte for byte, with the file suffix they are stored under. Every chat provider
# takes both; anything else is re-encoded to PNG. ".png" comes first: image_file tries the
# suffixes in this order, and every image of a store made before JPEG was kept is a ".png".
_KEPT = {b"\x89PNG": ".png", b"\xff\xd8\xff": ".jpg"}


def stored_form(data: bytes) -> tuple[bytes, str]:
    """The bytes an image is stored as and the suffix of its file: PNG and JPEG as given
    (so a PNG's hash is what it always was), anything else re-encoded as PNG. Raises
    ValueError when the bytes are not a readable image."""
    from PIL import Image, UnidentifiedImageError

    suffix = next((s for magic, s in _KEPT.items() if data.startswith(magic)), None)
    if suffix == ".png":
        return data, suffix
    try:
        with Image.open(io.BytesIO(data)) as image:
            if suffix is not None:
                image.load()  # a truncated or corrupt JPEG fails here, not in a provider
                return data, suffix
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            return buffer.getvalue(), ".png"
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise ValueError(f"not a readable image ({len(data)} bytes): {exc}") from None


def image_file(images_dir: Path, digest: str) -> Path:
    """The file of the image with hash ``digest``: the first suffix that exists, else
    ``<digest>.png`` (where a missing image is looked for and reported)."""
    for suffix in _KEPT.values():
        path = images_dir / f"{digest}{suffix}"
        if path.exists():
            return path
    return images_dir / f"{digest}.png"


def stored_images(images_dir: Path) -> list[Path]:
    """Every image file under ``images_dir`` (no temporary files of a write in progress)."""
    if not images_dir.exists():
        return []
    return [path for suffix in _KEPT.values() for path in images_dir.glob(f"*{suffix}")]


def image_meta(data: bytes) -> tuple[int | None, int | None, str]:
    """Width, height and media type of encoded image bytes (None, None and
    application/octet-stream when PIL cannot read them)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        # A PNG's size is in its first chunk: no need for PIL (a fifth of a millisecond an
        # image, when an import stores a hundred thousand).
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"), "image/png"
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.width, image.height, Image.MIME.get(image.format or "", "image/png")
    except (UnidentifiedImageError, OSError):
        return None, None, "application/octet-stream"
