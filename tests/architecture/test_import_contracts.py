"""The package graph is a DAG and stays one: the import-linter contracts in pyproject.toml hold
on this checkout, and a back-edge (a lazy one included) or a reach into another package's
private modules breaks them, so pytest fails as ``make lint`` does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed (pip install -e '.[dev]')"
)


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the sources under ``root/src``, with ``root/pyproject.toml``."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-logo", "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy(tmp_path: Path) -> Path:
    """A copy of the package and its contracts to break on purpose."""
    shutil.copytree(
        ROOT / "src" / "lvlmbench",
        tmp_path / "src" / "lvlmbench",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def test_the_contracts_hold_on_this_checkout():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_lazy_back_edge_breaks_the_layers(tmp_path):
    root = _copy(tmp_path)
    lower = root / "src" / "lvlmbench" / "store" / "_files.py"
    # The kind of import that used to hide a back-edge: inside a function, run only when called.
    lower.write_text(
        lower.read_text()
        + "\n\ndef _late() -> None:\n    from lvlmbench.report import write_report  # noqa\n"
    )
    result = _lint(root)
    assert result.returncode != 0
    assert "lvlmbench.store is not allowed to import lvlmbench.report" in result.stdout


def test_siblings_stay_independent(tmp_path):
    root = _copy(tmp_path)
    judge = root / "src" / "lvlmbench" / "judging" / "verdict.py"
    judge.write_text(judge.read_text() + "\nimport lvlmbench.autobench  # noqa\n")
    result = _lint(root)
    assert result.returncode != 0
    assert "lvlmbench.judging is not allowed to import lvlmbench.autobench" in result.stdout


def test_a_reach_into_models_internals_breaks_its_contract(tmp_path):
    root = _copy(tmp_path)
    higher = root / "src" / "lvlmbench" / "runner" / "_subset.py"
    higher.write_text(higher.read_text() + "\nimport lvlmbench.models._cache  # noqa\n")
    result = _lint(root)
    assert result.returncode != 0
    assert "lvlmbench.runner._subset -> lvlmbench.models._cache" in result.stdout


def test_a_new_top_level_package_must_be_given_a_layer(tmp_path):
    root = _copy(tmp_path)
    (root / "src" / "lvlmbench" / "newthing").mkdir()
    (root / "src" / "lvlmbench" / "newthing" / "__init__.py").write_text('"""Unplaced."""\n')
    result = _lint(root)
    assert result.returncode != 0
    assert "newthing" in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("contract", "package"), [("store-private", "store"), ("models-private", "models")]
)
def test_every_private_module_is_forbidden(contract, package):
    """A private module added later is covered too: the contract lists every one on disk."""
    on_disk = {
        f"lvlmbench.{package}.{path.stem}"
        for path in (ROOT / "src" / "lvlmbench" / package).glob("_*.py")
        if path.stem != "__init__"
    }
    assert on_disk and set(_contracts()[contract]["forbidden_modules"]) == on_disk  # type: ignore[arg-type]


def test_only_the_helpers_own_edges_are_ignored():
    """Ignored imports are the ones other branches are removing, each saying by whom."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for contract in _contracts().values():
        for ignored in contract.get("ignore_imports", []):  # type: ignore[attr-defined]
            line = next(ln for ln in text.splitlines() if f'"{ignored}"' in ln)
            assert "# removed by " in line, line
