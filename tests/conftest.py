"""What every test starts from, whatever the shell that runs pytest holds: none of the settings
lvlmbench reads from the environment (``LVLMBENCH_*``, providers' keys, endpoints and options, a
Ray address), Hugging Face offline with its caches in a temporary directory, and the store
fixtures (``store_url``: SQLite, and PostgreSQL under ``-m integration``) in every directory.

A test that needs a setting sets it with ``monkeypatch.setenv``; a setting a command writes into
``os.environ`` itself (``--images-dir`` does) is removed again after the test, so the next test,
and a module's fixtures built before it, start clean too.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator

import pytest
from pg_server import postgres_server, store_url  # noqa: F401 (fixtures for every directory)

READ_BY_LVLMBENCH = ("LVLMBENCH_", "OPENAI_", "ANTHROPIC_", "GOOGLE_", "GEMINI_")
"""Prefixes of the variables lvlmbench reads (its settings; providers' keys, endpoints)."""
ALSO_READ = frozenset({"HF_TOKEN", "RAY_ADDRESS"})
"""Single variables it reads: a Hub token, a Ray cluster to join instead of starting one."""
TEST_SETTINGS = frozenset(
    {"LVLMBENCH_GGUF_DIR", "LVLMBENCH_REQUIRE_BROWSER", "LVLMBENCH_SCREENSHOTS", "LVLMBENCH_SRC"}
)
"""Variables the tests themselves read (where the GGUF is kept, CI's browser and screenshots,
the checkout scanned): kept as the shell set them."""
HF_CACHES = ("HF_HUB_CACHE", "HF_DATASETS_CACHE", "HF_ASSETS_CACHE", "TRANSFORMERS_CACHE")
"""Cache locations that would override ``HF_HOME``."""


def read_by_lvlmbench(name: str) -> bool:
    """Whether ``name`` is a setting lvlmbench reads, which no test may inherit."""
    if name in TEST_SETTINGS:
        return False
    return name in ALSO_READ or name.startswith(READ_BY_LVLMBENCH)


def _scrub() -> None:
    for name in [name for name in os.environ if read_by_lvlmbench(name)]:
        del os.environ[name]


def _offline_caches(directory: str) -> None:
    """Hugging Face offline, caching under ``directory``. Set when this file is imported, before
    any test module imports huggingface_hub or datasets, which read these once at import."""
    for name in HF_CACHES:
        os.environ.pop(name, None)
    os.environ["HF_HOME"] = directory
    for flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[flag] = "1"
    hub = sys.modules.get("huggingface_hub.constants")
    if hub is not None:  # imported earlier by a plugin: its flag is already read
        hub.HF_HUB_OFFLINE = True


_CACHES = tempfile.mkdtemp(prefix="lvlmbench-test-caches-")
_scrub()
_offline_caches(_CACHES)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHES, ignore_errors=True)


@pytest.fixture(autouse=True)
def clean_environment() -> Iterator[None]:
    """No lvlmbench setting before the test, and none it left behind after it."""
    _scrub()
    yield
    _scrub()
