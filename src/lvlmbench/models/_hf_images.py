"""A group's images, decoded on a pool of threads before the processor runs.

Decoding a 640×480 JPEG takes a millisecond or two of CPU, so a group of 128 rows spent about
0.2 s in it on one thread, all of which the GPU waited for when nothing else was prepared.
Pillow lets go of the GIL while it decodes, so the pool's threads decode side by side and the
GIL is held only to hand each picture over.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Callable

from PIL import Image

from lvlmbench.models._api import ProviderError
from lvlmbench.models._hf_generate import decode_image
from lvlmbench.types import ImagePart

__all__ = ["ImageDecoder", "default_decode_threads"]

MAX_DEFAULT_THREADS = 8
"""Enough for the GPU never to wait on decoding: on an H200 machine's 16 cores, eight threads
decoded 256 640×480 JPEGs in 0.12 s where one took 0.42 s (bench/bench_local.py)."""


def default_decode_threads() -> int:
    """Threads that decode a group's images unless ``decode_threads`` says otherwise."""
    return max(1, min(MAX_DEFAULT_THREADS, os.cpu_count() or 1))


def _attempt(part: ImagePart) -> Image.Image | ProviderError:
    try:
        return decode_image(part)
    except ProviderError as exc:
        return exc


class ImageDecoder:
    """Decodes the images of a group on up to ``threads`` threads (one: on the caller's)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def decode_all(self, parts: list[ImagePart]) -> Callable[[ImagePart], Image.Image]:
        """Decode ``parts`` now; returns the lookup ``to_conversation`` takes, which raises a
        part's ProviderError when that image could not be read (its row fails alone)."""
        unique = list({id(part): part for part in parts}.values())
        if self.threads <= 1 or len(unique) <= 1:
            pictures = [_attempt(part) for part in unique]
        else:
            pictures = list(self._executor().map(_attempt, unique))
        decoded = {id(part): picture for part, picture in zip(unique, pictures, strict=True)}

        def lookup(part: ImagePart) -> Image.Image:
            picture = decoded[id(part)]
            if isinstance(picture, ProviderError):
                raise picture
            return picture

        return lookup

    def _executor(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self.threads, thread_name_prefix="hf-decode"
                )
            return self._pool

    def close(self) -> None:
        """Stop the threads (a later group starts them again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
