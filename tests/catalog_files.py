"""Helpers for the standard-benchmark catalog's tests: every cache it reads or writes moved
under the test's folder, and a lab catalog file (LVLMBENCH_CATALOG) whose one entry points at a
local server with a checksum the test chose."""

from __future__ import annotations

from pathlib import Path

import pytest

from lvlmbench.datasets.catalog import CATALOG_ENV

__all__ = ["isolate_caches", "lab_catalog"]


def isolate_caches(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """lvlmbench's cache, the Hugging Face cache and VLMEvalKit's LMUData under ``root``;
    downloads allowed, no extra catalog. Returns ``root``."""
    for name in ("LVLMBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_HOME", CATALOG_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LVLMBENCH_CACHE", str(root / "cache"))
    monkeypatch.setenv("HF_HUB_CACHE", str(root / "hub"))
    monkeypatch.setenv("LMUData", str(root / "LMUData"))
    return root


def lab_catalog(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    md5: str,
    *,
    name: str = "Lab_Bench",
    items: int = 40,
) -> Path:
    """An extra catalog file with one VLMEvalKit-style entry (``url``, ``md5``, ``items``
    rows as published), named by LVLMBENCH_CATALOG."""
    extra = folder / "lab.toml"
    extra.write_text(
        f'[[benchmark]]\nname = "{name}"\ntitle = "a lab benchmark"\nkind = "mc"\n'
        f'format = "vlmeval"\nurl = "{url}"\nmd5 = "{md5}"\nitems = {items}\n'
        'defined_in = "this test"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv(CATALOG_ENV, str(extra))
    return extra
