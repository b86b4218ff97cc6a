"""The shell that runs pytest cannot change what a test sees (tests/conftest.py): a developer's
``LVLMBENCH_STORE``, API key or Hub cache stays out, and so does a setting a test's command
wrote into ``os.environ`` itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
SHELL = {
    "LVLMBENCH_STORE": "/nowhere/a-developers.db",
    "LVLMBENCH_IMAGES": "/nowhere/images",
    "LVLMBENCH_WORKERS": "4",
    "OPENAI_API_KEY": "sk-a-real-key-0123456789",
    "OPENAI_BASE_URL": "http://10.0.0.1:8000/v1",
    "ANTHROPIC_API_KEY": "sk-ant-real",
    "GEMINI_API_KEY": "real",
    "RAY_ADDRESS": "10.0.0.1:6379",
    "HF_HOME": "/nowhere/hf-home",
    "HF_HUB_CACHE": "/nowhere/hub",
    "HF_HUB_OFFLINE": "0",
    "LVLMBENCH_SCREENSHOTS": "/kept/screenshots",
}


def _as_the_shell_set() -> list[str]:
    return sorted(
        name
        for name, value in SHELL.items()
        if os.environ.get(name) == value and name != "LVLMBENCH_SCREENSHOTS"
    )


def test_what_the_shell_set_reaches_no_test() -> None:
    """Run the probes below under a shell holding a developer's settings."""
    env = {**os.environ, **SHELL}
    probes = [f"{HERE}::test_probe_a_command_writes_a_setting", f"{HERE}::test_probe_sees_none"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *probes],
        cwd=HERE.parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


def _probe_only() -> None:
    """The probes run only when named on the command line (by the test above): an environment
    variable could not say so, since the conftest removes lvlmbench's."""
    if not any("::test_probe_" in arg for arg in sys.argv):
        pytest.skip("runs inside test_what_the_shell_set_reaches_no_test")


def test_probe_a_command_writes_a_setting() -> None:
    _probe_only()
    os.environ["LVLMBENCH_STORE"] = "/nowhere/written-by-a-command.db"  # as --images-dir does


def test_probe_sees_none() -> None:
    _probe_only()
    assert _as_the_shell_set() == []
    assert "LVLMBENCH_STORE" not in os.environ  # nor what the test before wrote
    assert os.environ["LVLMBENCH_SCREENSHOTS"] == "/kept/screenshots"  # the tests' own setting
    assert os.environ["HF_HOME"] != SHELL["HF_HOME"] and "HF_HUB_CACHE" not in os.environ
    assert Path(os.environ["HF_HOME"]).is_dir()
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    import huggingface_hub.constants

    assert huggingface_hub.constants.HF_HUB_OFFLINE
    assert Path(huggingface_hub.constants.HF_HUB_CACHE).is_relative_to(os.environ["HF_HOME"])
