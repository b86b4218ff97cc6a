"""Who makes ``baseline/...`` loadable: the models registry declares the provider (name and
options, so identities never depend on imports) and lvlmbench.baselines registers its factory.
The runner imports it, so every command and the Python API have it; the models layer alone
says exactly what to import instead of reaching up the package graph itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import lvlmbench.baselines
from lvlmbench.models import (
    CHAT_PROVIDERS,
    RegistryError,
    load_chat_model,
    register_chat_provider,
)
from lvlmbench.models._options import BASELINE_OPTIONS

SRC = Path(__file__).resolve().parents[2] / "src"


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a new interpreter that has imported nothing of lvlmbench yet."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "LVLMBENCH_WORKERS": "0"},
    )


def test_models_alone_names_the_package_to_import():
    result = _fresh(
        "from lvlmbench.models import RegistryError, load_chat_model, model_identity\n"
        "assert model_identity('baseline/random?seed=0') == 'baseline/random'\n"
        "assert model_identity('baseline/random?seed=3') == 'baseline/random?seed=3'\n"
        "try:\n"
        "    load_chat_model('baseline/random')\n"
        "except RegistryError as exc:\n"
        "    print(exc)\n"
        "else:\n"
        "    raise SystemExit('loaded without lvlmbench.baselines')\n"
    )
    assert result.returncode == 0, result.stderr
    assert "import lvlmbench.baselines" in result.stdout


@pytest.mark.parametrize("entry", ["lvlmbench.baselines", "lvlmbench.runner", "lvlmbench.api"])
def test_each_entry_point_can_load_a_baseline(entry):
    result = _fresh(
        f"import {entry}\n"
        "from lvlmbench.models import load_chat_model\n"
        "print(load_chat_model('baseline/random?seed=2').spec)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "baseline/random?seed=2"


def test_the_cli_loads_a_baseline_in_a_fresh_process():
    result = _fresh(
        "import sys\n"
        "sys.argv = ['lvlmbench', 'models', 'check', 'baseline/prior']\n"
        "from lvlmbench.cli import main\n"
        "main()\n"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "finish_reason" in result.stdout


@pytest.fixture
def providers(monkeypatch):
    """The chat registry, restored after the test."""
    for name, entry in list(CHAT_PROVIDERS.items()):
        monkeypatch.setitem(CHAT_PROVIDERS, name, entry)
    yield CHAT_PROVIDERS
    for name in set(CHAT_PROVIDERS) - {"openai", "anthropic", "google", "hf", "baseline"}:
        del CHAT_PROVIDERS[name]


class _Echo:
    def __init__(self, name: str, options: object) -> None:
        self.name, self.options = name, options


def test_a_registered_provider_loads_with_identity_and_checked_options(providers):
    register_chat_provider("echo", _Echo, options=BASELINE_OPTIONS)
    model = load_chat_model("echo/parrot?seed=4")
    assert isinstance(model, _Echo)
    assert (model.name, model.options) == ("parrot", {"seed": "4"})
    assert model.spec == "echo/parrot?seed=4"  # type: ignore[attr-defined]
    with pytest.raises(RegistryError, match="unknown option 'colour'"):
        load_chat_model("echo/parrot?colour=red")


def test_registration_refuses_to_replace_an_implementation(providers):
    with pytest.raises(RegistryError, match="'openai' is already registered"):
        register_chat_provider("openai", _Echo)
    with pytest.raises(RegistryError, match="'baseline' is already registered"):
        register_chat_provider("baseline", _Echo)
    register_chat_provider("baseline", lvlmbench.baselines.create)  # the same one: a no-op
    assert providers["baseline"].factory is lvlmbench.baselines.create


def test_a_declared_provider_keeps_its_option_table(providers, monkeypatch):
    declared = providers["baseline"]
    monkeypatch.setitem(
        providers,
        "baseline",
        declared.__class__(None, None, declared.options, provided_by="lvlmbench.baselines"),
    )
    with pytest.raises(RegistryError, match="options differ from its declaration"):
        register_chat_provider("baseline", _Echo, options={})
    register_chat_provider("baseline", lvlmbench.baselines.create)
    assert load_chat_model("baseline/oracle").spec == "baseline/oracle"
