"""The ``--image-root`` folder: downloaded pictures found by file name, a URL or a bare name
alike, without walking system folders or a whole disk."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lvlmbench.datasets.importers._common import DatasetError

__all__ = ["MAX_ROOT_ENTRIES", "ImageRoot", "image_name", "inside", "is_url"]

_URL = re.compile(r"^(https?|ftp)://", re.IGNORECASE)

MAX_ROOT_ENTRIES = 250_000
"""Most files and folders searched under ``--image-root``: a folder of one dataset's downloaded
pictures holds hundreds to tens of thousands (COCO's train split, 118k); a search past this is
a wrong folder (a home directory, a disk) and would take minutes."""
_SYSTEM_FOLDERS = frozenset(
    {"/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/run", "/sbin"}
    | {"/sys", "/usr", "/var"}
)


def is_url(value: str) -> bool:
    """Whether ``value`` is a web address (never fetched)."""
    return bool(_URL.match(value.strip()))


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
    order wins). System folders are refused, and the index stops past
    :data:`MAX_ROOT_ENTRIES` entries with a DatasetError."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise DatasetError(root, "--image-root: expected a folder of downloaded images")
        self.root = root
        self.resolved = root.resolve()
        if str(self.resolved) in _SYSTEM_FOLDERS or self.resolved == Path(self.resolved.anchor):
            raise DatasetError(
                root,
                "--image-root: refusing to search a system folder; expected the folder of this "
                "dataset's downloaded images",
            )
        self._files: dict[str, tuple[str, ...]] | None = None

    def find(self, value: str) -> Path | None:
        """The file ``value`` (a URL, a path or a file name) names under the root, if any."""
        if not is_url(value):
            direct = self.root / value
            try:
                if inside(direct, self.resolved) and direct.is_file():
                    return direct
            except OSError:
                pass
        if self._files is None:
            self._files = self._index()
        parts = self._files.get(image_name(value))
        return self.root.joinpath(*parts) if parts is not None else None

    def _index(self) -> dict[str, tuple[str, ...]]:
        """File name -> its path's parts under the root (folders linked from inside are not
        followed: they may lead anywhere)."""
        files: dict[str, tuple[str, ...]] = {}
        seen = 0
        for folder, folders, names in os.walk(self.root, followlinks=False):
            seen += len(folders) + len(names)
            if seen > MAX_ROOT_ENTRIES:
                raise DatasetError(
                    self.root,
                    f"--image-root: more than {MAX_ROOT_ENTRIES:,} files and folders under it; "
                    "expected the folder of this dataset's downloaded images (point "
                    "--image-root at it, not at a disk or a home folder)",
                )
            relative = Path(folder).relative_to(self.root).parts
            for name in names:
                parts = (*relative, name)
                if name not in files or parts < files[name]:
                    files[name] = parts
        return files


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, links and ``..`` resolved, lies in the resolved ``folder``."""
    try:
        return path.resolve().is_relative_to(folder)
    except (OSError, RuntimeError):  # a link loop
        return False
