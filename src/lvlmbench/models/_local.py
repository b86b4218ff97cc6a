"""What the local torch back-ends share: option parsing, device and dtype choice, load errors.

Used by :mod:`lvlmbench.models.hf` (transformers) and :mod:`lvlmbench.images.diffusers`. Importing
it needs torch, which is what those back-ends' extras bring.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import torch

from lvlmbench.models._api import ErrorKind, ProviderError

__all__ = [
    "DTYPES",
    "LoadOnce",
    "LocalSettings",
    "LocalSource",
    "check_weights",
    "load_error",
    "local_dir",
    "local_settings",
    "parse_bool",
    "parse_positive_int",
    "ray_missing",
    "resolve_device",
    "resolve_dtype",
    "wants_ray",
]

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
_TRUE = {"1", "true", "yes", "on"}
T = TypeVar("T")
_FALSE = {"0", "false", "no", "off"}


def parse_bool(value: str | None, default: bool, option: str) -> bool:
    """A registry option (always a string) as a bool; a typo raises instead of meaning False."""
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"option {option}={value!r}: expected true or false")


def parse_positive_int(value: str | None, default: int, option: str) -> int:
    """A registry option as an integer >= 1."""
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"option {option}={value!r}: expected a whole number") from None
    if number < 1:
        raise ValueError(f"option {option}={value!r}: must be at least 1")
    return number


def wants_ray(options: Mapping[str, str]) -> bool:
    """Whether a spec asks for its model on Ray (``ray=true``); the pool options without it are
    refused rather than silently run in this process."""
    if parse_bool(options.get("ray"), False, "ray"):
        return True
    for option in ("actors", "num_gpus", "ray_address"):
        if options.get(option):
            raise ValueError(f"option {option}: only used with ray=true")
    return False


def resolve_device(option: str) -> str:
    """``auto`` picks cuda, then mps, then cpu; anything else must be a device torch knows."""
    if option == "auto":
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return "mps"
        return "cpu"
    try:
        return str(torch.device(option))
    except (RuntimeError, ValueError):
        raise ValueError(
            f"option device={option!r}: not a torch device (auto, cpu, cuda...)"
        ) from None


def resolve_dtype(option: str, device: str) -> str:
    """The dtype name to load weights in. ``auto``: float32 on CPU (half precision is slow and
    lossy there), bfloat16 on GPUs that support it, float16 otherwise."""
    if option != "auto":
        if option not in DTYPES:
            raise ValueError(f"option dtype={option!r}: expected auto, {', '.join(DTYPES)}")
        return option
    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    if device.startswith("mps"):
        return "float16"
    return "float32"


def local_dir(name: str) -> Path | None:
    """The directory ``name`` points to, if it is one; None for what must be a hub repo id."""
    path = Path(name).expanduser()
    return path.resolve() if path.is_dir() else None


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~")) or "\\" in name or name.count("/") > 1


_NOT_CACHED = (
    "not a local directory and not in the Hugging Face cache; download it first "
    "(`hf download <repo>`) or pass local_files_only=false to allow downloads"
)


def weights_problem(
    name: str, revision: str | None, local_files_only: bool, marker: str
) -> str | None:
    """Why ``name``'s weights certainly cannot be found on this machine, or None: a path that is
    no directory, or (downloads not allowed) a repo id whose ``marker`` file (``config.json``,
    ``model_index.json``) is not in the Hugging Face cache. Looks at files only, in
    milliseconds: what a load would find missing only after seconds (or a Ray cluster's start)."""
    if local_dir(name) is not None:
        return None
    if _looks_like_path(name):
        return f"no such directory: {Path(name).expanduser().absolute()}"
    if not local_files_only:
        return None  # the load may download it
    from huggingface_hub import try_to_load_from_cache  # a dependency of both back-ends

    try:
        found = try_to_load_from_cache(name, marker, revision=revision)
    except Exception:  # not a valid repo id (HFValidationError): it cannot be cached either
        found = None
    return None if isinstance(found, str) else _NOT_CACHED


def check_weights(
    spec: str, name: str, revision: str | None, local_files_only: bool, marker: str
) -> None:
    """Raise the FATAL ProviderError of :func:`load_error` when :func:`weights_problem` finds
    the weights missing: the check a preflight makes before loading (or starting Ray)."""
    problem = weights_problem(name, revision, local_files_only, marker)
    if problem is not None:
        raise ProviderError(f"{spec}: cannot load {name!r}", ErrorKind.FATAL, hint=problem)


def load_error(spec: str, name: str, exc: BaseException, local_files_only: bool) -> ProviderError:
    """A FATAL error for weights that cannot be loaded, with a hint that says what to do.

    FATAL without a status code aborts the run: every later call would fail the same way.
    """
    if local_dir(name) is None and _looks_like_path(name):
        hint = f"no such directory: {Path(name).expanduser()}"
    elif local_dir(name) is None and local_files_only:
        hint = _NOT_CACHED
    else:
        hint = "check that the directory holds a complete save_pretrained() export"
    cause = f"{type(exc).__name__}: {exc}".strip()
    if len(cause) > 500:
        cause = cause[:500] + "..."
    return ProviderError(f"{spec}: cannot load {name!r}: {cause}", ErrorKind.FATAL, hint=hint)


@dataclass(frozen=True)
class LocalSource:
    """Where a local model's weights are and what it runs on: its spec, the path that keys its
    cache identity, the endpoint its calls are limited under, its device and dtype."""

    spec: str
    path: str
    endpoint: str
    device: str
    dtype: str

    @classmethod
    def of(cls, provider: str, name: str, device: str, dtype: str) -> LocalSource:
        """``provider/name`` with the ``device``/``dtype`` options resolved."""
        directory = local_dir(name)
        # A directory is keyed by its absolute path so "./m" and "/abs/m" share cache entries.
        path = str(directory) if directory is not None else name
        resolved = resolve_device(device)
        return cls(
            f"{provider}/{name}",
            path,
            f"local:{provider}:{path}",
            resolved,
            resolve_dtype(dtype, resolved),
        )


class LoadOnce(Generic[T]):
    """Weights loaded once for every caller, in a worker thread: loading is slow, and a load
    that failed would fail the same way again, so its first error is repeated."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.value: T | None = None
        self._failure: ProviderError | None = None
        self.lock = asyncio.Lock()

    async def get(self, load: Callable[[], T]) -> tuple[T, bool]:
        """The loaded value, and whether this call loaded it."""
        async with self.lock:
            if self.value is not None:
                return self.value, False
            if self._failure is not None:
                raise self._failure
            try:
                self.value = await asyncio.to_thread(load)
            except ProviderError as exc:
                self._failure = exc
                raise
            return self.value, True

    async def drop(self) -> None:
        """Forget the weights and give device memory back (the next call loads them again)."""
        async with self.lock:
            self.value = None
        gc.collect()
        if self.device.startswith("cuda"):
            torch.cuda.empty_cache()


@dataclass(frozen=True)
class LocalSettings:
    """The options every local back-end takes, parsed."""

    device: str = "auto"
    dtype: str = "auto"
    revision: str | None = None
    local_files_only: bool = True
    """Whether only files already on disk may be used."""


def local_settings(options: Mapping[str, str]) -> LocalSettings:
    """The options every local back-end takes, parsed: device, dtype, revision and whether
    only files already on disk may be used."""
    return LocalSettings(
        device=options.get("device", "auto"),
        dtype=options.get("dtype", "auto"),
        revision=options.get("revision") or None,
        local_files_only=parse_bool(options.get("local_files_only"), True, "local_files_only"),
    )


def ray_missing(exc: ImportError) -> ValueError:
    """The error for ``ray=true`` without Ray installed (an optional extra)."""
    return ValueError(
        f"option ray=true needs Ray ({exc.name} missing): pip install 'lvlmbench[ray]'"
    )
