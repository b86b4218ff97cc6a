"""A description longer than the text-to-image model's text encoder reads (CLIP: 77 tokens; the
tiny test pipeline's tokenizer: 16) is drawn from a truncated prompt: each accepted item's
description is counted with the pipeline's own tokenizer, and the cut ones are counted, named
in the generation report's ``prompt_truncation`` and in a warning."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("diffusers")
pytest.importorskip("transformers")

from examiner_fakes import Call, ScriptedExaminer, description_colours, description_text
from tiny_diffusers import build_tiny_stable_diffusion

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.store import GenerationReport, Store

pytestmark = pytest.mark.integration  # builds and runs a (tiny) diffusion model

SETTINGS = GenerateSettings(
    capability="reading shop signs",
    n=1,
    m=2,
    per_aspect=1,
    levels=("easy", "hard"),
    seed=3,
    image_size=32,
    k_checks=2,
    max_attempts=1,
)


def _short_when_easy(call: Call) -> str | None:
    """Easy descriptions in 8 words (under the tiny tokenizer's 16), hard ones as scripted
    (23 tokens: "A red circle on the left and a blue square on the right, on a plain white
    background (scene 1a2b3c4d)." split into words and punctuation runs)."""
    if "Difficulty level: **easy**" not in call.prompt:
        return None
    circle, square = description_colours(description_text("00000000"))
    text = f"A {circle} circle and a {square} square ."
    return json.dumps({"topic": "t", "keywords": ["k1", "k2", "k3"], "description": text})


def test_descriptions_past_the_encoder_limit_are_counted_and_warned(tmp_path: Path) -> None:
    sd = tmp_path / "tiny-sd"
    build_tiny_stable_diffusion(sd)
    store = Store.open(str(tmp_path / "s.db"))
    examiner = ScriptedExaminer(overrides={"description": _short_when_easy})
    backend = ModelBackend(ModelClient(examiner, store), mode="text", k_checks=2)
    images = ImageClient(load_image_model(f"diffusers/{sd}", device="cpu", steps="2"), store)
    try:
        report = asyncio.run(generate_benchmark(store, SETTINGS, backend, images))
    finally:
        asyncio.run(images.aclose())
        store.close()
    assert isinstance(report, GenerationReport) and report.items == 4
    cut = report.prompt_truncation
    assert cut is not None
    # 2 fine aspects x 2 levels: the 2 hard descriptions (23 tokens) past the limit of 16.
    assert (cut.truncated, cut.items, cut.limit, cut.longest) == (2, 4, 16, 23)
    assert cut.encoder.startswith("tokenizer (") and len(cut.units) == 2
    assert all("|hard|" in unit for unit in cut.units)
    (warning,) = report.warnings
    assert warning.startswith("2 of 4 items' descriptions are longer than the 16 tokens ")
    assert f"diffusers/{sd}" in warning and "truncated prompt" in warning
