"""Streaming a published file into the cache: hashed as it arrives, resumed where an earlier
try stopped, kept only when its checksum is right."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import httpx

from lvlmbench.datasets.catalog._entries import CatalogError, Checksum

__all__ = ["ByteProgress", "Unreachable", "digest_file", "download"]

ByteProgress = Callable[[int, int | None], None]
"""Hears (bytes so far, total bytes or None when the server does not say)."""

_CHUNK = 1 << 20
_TIMEOUT = httpx.Timeout(30.0, read=120.0)


class Unreachable(CatalogError):
    """The server could not be reached at all (no network): the caller says what to fetch."""


def digest_file(path: Path, algorithm: str) -> str:
    """The hex digest of ``path``'s bytes, read in chunks (files run to gigabytes)."""
    hasher = hashlib.new(algorithm)
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def download(
    url: str,
    target: Path,
    checksum: Checksum | None,
    on_progress: ByteProgress | None = None,
) -> dict[str, str]:
    """Fetch ``url`` into ``target`` and return its digests (sha256, and the checksum's
    algorithm). Bytes arrive in ``target.part``; a
    part left by an interrupted try is resumed with a Range request (a server that ignores it
    sends the whole file again). The part becomes ``target`` only when the file is whole and
    matches ``checksum``; a mismatch removes it and raises CatalogError naming both digests."""
    part = target.with_name(target.name + ".part")
    hashers = _hashers(checksum)
    have = _rehash(part, hashers)
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        with (
            httpx.Client(timeout=_TIMEOUT, follow_redirects=True) as client,
            client.stream("GET", url, headers=headers) as response,
        ):
            if response.status_code == 416 and have:
                pass  # the part already holds every byte: only its checksum is left to check
            elif response.status_code not in (200, 206):
                raise CatalogError(f"{url}: HTTP {response.status_code}, expected the file")
            else:
                have = _receive(response, part, hashers, have, on_progress)
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise Unreachable(f"cannot reach {url.split('/')[2]} ({exc})") from None
    except httpx.HTTPError as exc:
        kept = part.stat().st_size if part.is_file() else 0
        raise CatalogError(
            f"download of {url} broke off after {kept:,} bytes ({type(exc).__name__}: {exc}); "
            f"run the same command again to resume from {part}"
        ) from None
    _check(part, checksum, hashers)
    part.replace(target)
    return {name: hasher.hexdigest() for name, hasher in hashers.items()}


def _receive(
    response: httpx.Response,
    part: Path,
    hashers: dict[str, hashlib._Hash],
    have: int,
    on_progress: ByteProgress | None,
) -> int:
    """Write the body to ``part`` (appended after ``have`` bytes for a 206, from the start
    otherwise), hashing as it arrives; the bytes the part holds after."""
    if response.status_code != 206 and have:
        have = 0  # the server ignored the Range and sends it all again
        for name in list(hashers):
            hashers[name] = hashlib.new(name)
    total = _total(response, have)
    part.parent.mkdir(parents=True, exist_ok=True)
    with part.open("ab" if have else "wb") as out:
        for chunk in response.iter_bytes():  # as it arrives: a break keeps what came
            out.write(chunk)
            for hasher in hashers.values():
                hasher.update(chunk)
            have += len(chunk)
            if on_progress is not None:
                on_progress(have, total)
    return have


def _hashers(checksum: Checksum | None) -> dict[str, hashlib._Hash]:
    names = {"sha256"} | ({checksum.algorithm} if checksum is not None else set())
    return {name: hashlib.new(name) for name in sorted(names)}


def _rehash(part: Path, hashers: dict[str, hashlib._Hash]) -> int:
    """Feed an earlier try's bytes to the hashers; how many there were (0: none)."""
    if not part.is_file():
        return 0
    size = 0
    with part.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            for hasher in hashers.values():
                hasher.update(chunk)
            size += len(chunk)
    return size


def _total(response: httpx.Response, have: int) -> int | None:
    length = response.headers.get("content-length")
    if length is None or not length.isdigit():
        return None
    return int(length) + (have if response.status_code == 206 else 0)


def _check(part: Path, checksum: Checksum | None, hashers: dict[str, hashlib._Hash]) -> None:
    if checksum is None:
        return
    actual = hashers[checksum.algorithm].hexdigest()
    if actual != checksum.hexdigest:
        part.unlink(missing_ok=True)
        raise CatalogError(
            f"checksum mismatch for {part.name.removesuffix('.part')}: expected "
            f"{checksum.algorithm} {checksum.hexdigest}, got {actual}; the file was removed"
        )
