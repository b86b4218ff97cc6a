"""The text-to-image registry lives in ``images``: it checks specs with the models' parser and
option tables, and ``models`` knows nothing of it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lvlmbench.images import IMAGE_PROVIDERS, image_identity, load_image_model
from lvlmbench.models import CHAT_PROVIDERS, RegistryError, model_identity


def test_models_imports_nothing_from_images() -> None:
    code = (
        "import sys, lvlmbench.models, lvlmbench.models.providers\n"
        "print(sorted(m for m in sys.modules if m.startswith('lvlmbench.images')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_image_specs_name_image_providers_only() -> None:
    assert sorted(IMAGE_PROVIDERS) == ["diffusers", "openai", "procedural"]
    assert "procedural" not in CHAT_PROVIDERS
    with pytest.raises(RegistryError, match="unknown provider 'anthropic'; known: procedural"):
        load_image_model("anthropic/claude")
    # A chat spec is left to the chat table: "procedural" is no chat provider.
    assert model_identity("procedural") == "procedural"
    with pytest.raises(RegistryError, match="unknown option 'temperature' for openai/"):
        load_image_model("openai/dall-e-3?temperature=0.5")  # an image model takes no sampling


def test_the_procedural_renderer_is_one_model_whatever_its_label() -> None:
    model = load_image_model("procedural/any-label")
    assert model.spec == "procedural" == image_identity("procedural/other")
