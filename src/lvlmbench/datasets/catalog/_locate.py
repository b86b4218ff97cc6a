"""Finding a standard benchmark's file on this machine, else downloading it once.

The places looked in, in order: a file the user names (``--file``), lvlmbench's cache
(``LVLMBENCH_CACHE``, else ``$XDG_CACHE_HOME/lvlmbench``, else ``~/.cache/lvlmbench``), the
Hugging Face hub cache (``HF_HUB_CACHE``, ``HF_HOME/hub``, ``~/.cache/huggingface/hub``) for a
Hub file, and VLMEvalKit's data folder (``LMUData``, else ``~/LMUData``) for its TSVs. A copy
counts only when its checksum matches the published one. Then, unless offline
(``LVLMBENCH_OFFLINE`` or ``HF_HUB_OFFLINE`` set), the file is downloaded into the cache;
offline, or with no network, the error says what to download and where to put it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lvlmbench.datasets.catalog._download import ByteProgress, Unreachable, digest_file, download
from lvlmbench.datasets.catalog._entries import CatalogError, Checksum, StandardBenchmark

__all__ = [
    "Located",
    "cache_root",
    "cached_file",
    "hub_cache_root",
    "is_offline",
    "lmudata_root",
    "locate",
]

Origin = Literal["file", "cache", "huggingface", "lmudata", "download"]
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Located:
    """The file a standard benchmark is read from, where it was found, and its checksum when
    one was checked (None: a user's file for an entry that publishes none)."""

    entry: StandardBenchmark
    path: Path
    origin: Origin
    verified: Checksum | None


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def cache_root() -> Path:
    """Where downloads are kept: ``LVLMBENCH_CACHE``, else ``$XDG_CACHE_HOME/lvlmbench``, else
    ``~/.cache/lvlmbench``."""
    if os.environ.get("LVLMBENCH_CACHE"):
        return Path(os.environ["LVLMBENCH_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else _home() / ".cache") / "lvlmbench"


def hub_cache_root() -> Path:
    """The Hugging Face hub cache, found as ``huggingface_hub`` finds it."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else _home() / ".cache") / "huggingface" / "hub"


def lmudata_root() -> Path:
    """VLMEvalKit's data folder (its ``LMUDataRoot``): ``LMUData``, else ``~/LMUData``."""
    root = os.environ.get("LMUData")  # noqa: SIM112 - VLMEvalKit's own spelling
    return Path(root).expanduser() if root else _home() / "LMUData"


def is_offline() -> bool:
    """Downloads are off when ``LVLMBENCH_OFFLINE`` or ``HF_HUB_OFFLINE`` is set true."""
    return bool(_offline_set())


def _offline_set() -> list[str]:
    names = ("LVLMBENCH_OFFLINE", "HF_HUB_OFFLINE")
    return [name for name in names if os.environ.get(name, "").strip().lower() in _TRUE]


def cached_file(entry: StandardBenchmark) -> Path:
    """Where the cache keeps ``entry``'s file: ``<cache>/benchmarks/<name>/<file>``."""
    return cache_root() / "benchmarks" / entry.name / entry.file_name


def locate(
    entry: StandardBenchmark,
    *,
    file: Path | None = None,
    offline: bool | None = None,
    on_progress: ByteProgress | None = None,
) -> Located:
    """The verified local file of ``entry``: ``file`` when given (a checksum mismatch is an
    error and the user's file is left alone), else the first verified copy on this machine,
    else a download into the cache (unless ``offline``; None reads the environment)."""
    if file is not None:
        return Located(entry, file, "file", _check_users_file(entry, file))
    rejected: list[str] = []
    found = _on_this_machine(entry, rejected)
    if found is not None:
        return found
    if offline or (offline is None and is_offline()):
        why = "--offline" if offline else " or ".join(f"{name}=1" for name in _offline_set())
        raise CatalogError(_what_to_download(entry, f"downloads are off ({why})", rejected))
    target = cached_file(entry)
    try:
        digests = download(entry.url, target, entry.checksum, on_progress)
    except Unreachable as exc:
        raise CatalogError(_what_to_download(entry, str(exc), rejected)) from None
    _remember(target, digests)
    return Located(
        entry, target, "download", entry.checksum or Checksum("sha256", digests["sha256"])
    )


def _check_users_file(entry: StandardBenchmark, file: Path) -> Checksum | None:
    if not file.is_file():
        raise CatalogError(f"--file {file}: no such file")
    expected = entry.checksum
    if expected is None:
        return None
    actual = digest_file(file, expected.algorithm)
    if actual != expected.hexdigest:
        raise CatalogError(
            f"checksum mismatch for {file} (given as {entry.name}): expected {expected}, got "
            f"{actual}; it is not the published file (left in place, nothing imported)"
        )
    return expected


def _on_this_machine(entry: StandardBenchmark, rejected: list[str]) -> Located | None:
    """The first verified copy; each copy passed over for its checksum is noted in
    ``rejected``, so the error can say why it was not used."""
    cached = _from_cache(entry)
    if cached is not None:
        return cached
    expected = entry.checksum
    for origin, path in _elsewhere(entry):
        if expected is None:
            return Located(entry, path, origin, None)  # a pinned Hub commit vouches for it
        actual = digest_file(path, expected.algorithm)
        if actual == expected.hexdigest:
            return Located(entry, path, origin, expected)
        rejected.append(f"{path} has {expected.algorithm} {actual}")
    return None


def _elsewhere(entry: StandardBenchmark) -> list[tuple[Origin, Path]]:
    """Copies other tools keep: the Hugging Face cache (a pinned commit's snapshot; for a
    branch, any snapshot, which only a published checksum can vouch for) and VLMEvalKit's."""
    found: list[tuple[Origin, Path]] = []
    hub = entry.hub_file
    if hub is not None and (hub.pinned or entry.checksum is not None):
        snapshots = hub_cache_root() / f"datasets--{hub.repo.replace('/', '--')}" / "snapshots"
        revisions = [hub.revision] if hub.pinned else _sorted_names(snapshots)
        found += [("huggingface", snapshots / rev / hub.path) for rev in revisions]
    if entry.format == "vlmeval" and entry.checksum is not None:
        root = lmudata_root()
        found += [("lmudata", root / entry.file_name), ("lmudata", root / _url_name(entry))]
    return [(origin, path) for origin, path in found if path.is_file()]


def _sorted_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _url_name(entry: StandardBenchmark) -> str:
    return entry.url.rsplit("/", 1)[-1]


def _record_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _remember(path: Path, digests: dict[str, str]) -> None:
    """Note the file's size, time and digests beside it: a later use trusts an unchanged file
    without reading gigabytes again, and an entry without a published checksum is held to the
    sha256 of its first download."""
    stat = path.stat()
    record = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, **digests}
    _record_path(path).write_text(json.dumps(record), encoding="utf-8")


def _read_record(path: Path) -> dict[str, object]:
    try:
        loaded = json.loads(_record_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _from_cache(entry: StandardBenchmark) -> Located | None:
    """The cached download if it is still what was verified. A file changed since it was
    recorded is read again; one that fails its checksum (the published one, else the sha256
    of its first download) is removed, so it is downloaded again."""
    path = cached_file(entry)
    if not path.is_file():
        return None
    record, stat, expected = _read_record(path), path.stat(), entry.checksum
    recorded = record.get("sha256")
    first = Checksum("sha256", recorded) if isinstance(recorded, str) else None
    unchanged = record.get("size") == stat.st_size and record.get("mtime_ns") == stat.st_mtime_ns
    vouched = expected is None or record.get(expected.algorithm) == expected.hexdigest
    if unchanged and first is not None and vouched:
        return Located(entry, path, "cache", expected or first)
    wanted = expected or first
    digests = {name: digest_file(path, name) for name in _algorithms(wanted)}
    if wanted is not None and digests[wanted.algorithm] != wanted.hexdigest:
        path.unlink()
        _record_path(path).unlink(missing_ok=True)
        return None
    _remember(path, digests)
    return Located(entry, path, "cache", wanted or Checksum("sha256", digests["sha256"]))


def _algorithms(checksum: Checksum | None) -> list[str]:
    return sorted({"sha256"} | ({checksum.algorithm} if checksum is not None else set()))


def _what_to_download(entry: StandardBenchmark, why: str, rejected: list[str]) -> str:
    """One line: why nothing was fetched, the URL and checksum, where the file goes, the
    other places a copy is read from, and the copies passed over for their checksum."""
    checksum = str(entry.checksum) if entry.checksum else "no published checksum"
    places = ["or pass a copy with --file PATH"]
    hub = entry.hub_file
    if hub is not None and hub.pinned:
        places.append(
            f"or put it in the Hugging Face cache (huggingface-cli download {hub.repo} "
            f"{hub.path} --repo-type dataset --revision {hub.revision})"
        )
    if entry.format == "vlmeval":
        places.append(f"or where VLMEvalKit keeps it ({lmudata_root() / entry.file_name})")
    passed_over = f" (not the published file: {'; '.join(rejected)})" if rejected else ""
    return (
        f"{entry.name} is not on this machine{passed_over} and {why}: download {entry.url} "
        f"({checksum}) to {cached_file(entry)}, " + ", ".join(places)
    )
