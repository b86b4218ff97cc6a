"""Real Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright (never
`playwright install`), and the fixtures every browser test module shares (tests/web/conftest.py
registers them)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def require_chromium() -> ModuleType:
    """``playwright.sync_api``; the calling module is skipped where Chromium or Playwright is
    missing (an error instead with LVLMBENCH_REQUIRE_BROWSER=1, so CI cannot skip silently)."""
    if not CHROMIUM.exists():
        if os.environ.get("LVLMBENCH_REQUIRE_BROWSER") == "1":
            raise RuntimeError("browser tests need Debian's chromium: apt-get install chromium")
        pytest.skip("Debian's chromium is not installed", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = require_chromium()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"],
        )
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $LVLMBENCH_SCREENSHOTS, or a temporary folder."""
    wanted = os.environ.get("LVLMBENCH_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
