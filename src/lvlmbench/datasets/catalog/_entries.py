"""The catalog's entries: what a standard benchmark's name stands for, read from
``benchmarks.toml`` (the facts live in that data file, not in code)."""

from __future__ import annotations

import difflib
import functools
import os
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

__all__ = [
    "CATALOG_ENV",
    "CatalogError",
    "Checksum",
    "HubFile",
    "StandardBenchmark",
    "close_names",
    "find_benchmark",
    "standard_benchmarks",
]

_HEX = {"md5": 32, "sha256": 64}


class CatalogError(ValueError):
    """A standard benchmark that cannot be had: a catalog file that does not parse, a copy
    not on this machine while offline, a checksum that does not match, a download that broke
    off. The message says what to do."""


class StandardBenchmark(BaseModel):
    """One published benchmark: where its authors publish it and how to import it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The canonical name (VLMEvalKit's spelling where VLMEvalKit distributes it)."""
    aliases: tuple[str, ...] = ()
    title: str
    kind: Literal["mc", "tf", "open"]
    format: Literal["vlmeval", "visit", "touchstone"]
    """The import format the file is read with (as ``lvlmbench import FILE -f FORMAT``)."""
    url: str
    md5: str | None = None
    sha256: str | None = None
    """The published checksum (MD5 for VLMEvalKit's files); neither: the sha256 of the first
    download is recorded beside the cached file and checked on every later use. A Hub URL at
    a 40-hex commit pins the file's content by itself."""
    items: int | None = None
    """Rows the published file holds, where known."""
    licence: str | None = None
    defined_in: str
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> StandardBenchmark:
        for algorithm, length in _HEX.items():
            value = getattr(self, algorithm)
            if value is not None and not re.fullmatch(f"[0-9a-f]{{{length}}}", value):
                raise ValueError(f"{self.name}: {algorithm} must be {length} hex digits")
        return self

    @property
    def file_name(self) -> str:
        """The cached file's name: ``<name>.tsv`` as VLMEvalKit keeps it under ~/LMUData, else
        the published file's own name."""
        if self.format == "vlmeval":
            return f"{self.name}.tsv"
        return self.url.rsplit("/", 1)[-1]

    @property
    def checksum(self) -> Checksum | None:
        """The published checksum, None where the authors publish none."""
        if self.sha256 is not None:
            return Checksum("sha256", self.sha256)
        if self.md5 is not None:
            return Checksum("md5", self.md5)
        return None

    @property
    def hub_file(self) -> HubFile | None:
        """The Hugging Face dataset file the URL resolves, None for another host."""
        found = _HUB_URL.fullmatch(self.url)
        if found is None:
            return None
        return HubFile(found["repo"], found["revision"], found["path"])

    @property
    def source(self) -> str:
        """Where it comes from, in a few words: the Hub id at its revision, else the host."""
        hub = self.hub_file
        if hub is not None:
            return f"hf:{hub.repo}@{hub.revision[:12]}"
        return self.url.split("/")[2]


_HUB_URL = re.compile(
    r"https://huggingface\.co/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<path>.+)"
)


@dataclass(frozen=True)
class HubFile:
    """A file of a Hugging Face dataset repository at a revision (a 40-hex commit pins it;
    ``main`` follows the branch, so only a checksum can vouch for a copy of it)."""

    repo: str
    revision: str
    path: str

    @property
    def pinned(self) -> bool:
        return re.fullmatch("[0-9a-f]{40}", self.revision) is not None


@dataclass(frozen=True)
class Checksum:
    """A digest a file must have: the algorithm (``md5`` or ``sha256``) and its hex value."""

    algorithm: Literal["md5", "sha256"]
    hexdigest: str

    def __str__(self) -> str:
        return f"{self.algorithm} {self.hexdigest}"


def _key(name: str) -> str:
    """Names compare case-insensitively and ignoring punctuation: ``mmbench_dev_en``,
    ``MMBench-DEV-EN`` and ``MMBench_DEV_EN`` are one name."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


CATALOG_ENV = "LVLMBENCH_CATALOG"
"""Extra catalog files (TOML in ``benchmarks.toml``'s layout, separated like PATH): a lab's
own benchmarks by name, beside the standard ones."""


def standard_benchmarks() -> tuple[StandardBenchmark, ...]:
    """Every catalog entry: the built-in ones in the data file's order, then those of the
    files ``LVLMBENCH_CATALOG`` names. A name or alias that two entries share is an error."""
    return _loaded(os.environ.get(CATALOG_ENV, ""))[0]


@functools.cache
def _loaded(extra: str) -> tuple[tuple[StandardBenchmark, ...], dict[str, StandardBenchmark]]:
    built_in = resources.files(__package__).joinpath("benchmarks.toml")
    texts = [("benchmarks.toml", built_in.read_text("utf-8"))]
    texts += [(p, _read(p)) for p in extra.split(os.pathsep) if p]
    entries = tuple(entry for where, text in texts for entry in _parsed(where, text))
    by_key: dict[str, StandardBenchmark] = {}
    for entry in entries:
        for spelling in (entry.name, *entry.aliases):
            taken = by_key.setdefault(_key(spelling), entry)
            if taken is not entry:
                raise CatalogError(
                    f"catalog: {spelling!r} names both {taken.name} and {entry.name}"
                )
    return entries, by_key


def _read(path: str) -> str:
    try:
        return Path(path).read_text("utf-8")
    except OSError as exc:
        raise CatalogError(f"{CATALOG_ENV}: cannot read {path}: {exc.strerror}") from None


def _parsed(where: str, text: str) -> list[StandardBenchmark]:
    """The entries of one catalog file; CatalogError naming the file and entry otherwise."""
    try:
        rows = _rows(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{where}: not valid TOML ({exc})") from None
    entries = []
    for number, row in enumerate(rows, 1):
        try:
            entries.append(StandardBenchmark(**row))
        except (TypeError, ValidationError) as exc:
            raise CatalogError(f"{where}, benchmark {number}: {_first_problem(exc)}") from None
    return entries


def _first_problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        return f"{field}: {error['msg']}" if field else str(error["msg"])
    return str(exc)


def _rows(text: str) -> list[dict[str, Any]]:
    rows = tomllib.loads(text).get("benchmark", [])
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []


def _by_key() -> dict[str, StandardBenchmark]:
    return _loaded(os.environ.get(CATALOG_ENV, ""))[1]


def find_benchmark(name: str) -> StandardBenchmark | None:
    """The entry ``name`` names (its name or an alias, any case), None if none does."""
    return _by_key().get(_key(name))


def close_names(name: str) -> list[str]:
    """Up to three catalog names spelled like ``name``, for a "did you mean" hint."""
    keys = difflib.get_close_matches(_key(name), list(_by_key()), n=3, cutoff=0.75)
    return list(dict.fromkeys(_by_key()[key].name for key in keys))
