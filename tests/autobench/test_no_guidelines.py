"""The guideline ablation (the paper's Table 4): --no-guidelines writes no guideline, the
description prompts say so, the setting is stored and a resume cannot flip it."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import ScriptedExaminer, prompt_kind
from typer.testing import CliRunner

from lvlmbench.autobench.llm import NO_GUIDELINE, ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.cli import app
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.store import Store, get_artifact, get_benchmark

SETTINGS = GenerateSettings(
    capability="spatial understanding",
    name="ablation",
    n=1,
    m=2,
    per_aspect=1,
    levels=("easy",),
    k_checks=2,
    seed=1,
    guidelines=False,
)


def _generate(store: Store, settings: GenerateSettings) -> tuple[ScriptedExaminer, dict[str, Any]]:
    model = ScriptedExaminer()
    backend = ModelBackend(
        ModelClient(model, store), mode="scene", k_checks=2, guidelines=settings.guidelines
    )
    images = ImageClient(load_image_model("procedural"), store)

    async def go() -> dict[str, Any]:
        try:
            return (await generate_benchmark(store, settings, backend, images)).as_json()
        finally:
            await images.aclose()

    return model, asyncio.run(go())


def test_no_guideline_is_written_and_the_prompts_say_so(tmp_path: Path):
    store = Store.open(str(tmp_path / "s.db"))
    model, report = _generate(store, SETTINGS)
    kinds = [prompt_kind(call) for call in model.calls]
    assert "guideline" not in kinds and "description" in kinds
    descriptions = [c for c in model.calls if prompt_kind(c) == "description"]
    assert all(NO_GUIDELINE in c[-1].text() for c in descriptions)
    plan = get_artifact(store, "ablation", "plan", "plan")
    assert plan is not None and {a["guideline"] for a in plan["aspects"]} == {NO_GUIDELINE}
    row = get_benchmark(store, "ablation")
    assert row is not None and row.data.settings["guidelines"] is False
    assert report["items"] > 0
    with pytest.raises(ValueError, match="guidelines"):
        _generate(store, replace(SETTINGS, guidelines=True))
    store.close()


def test_guidelines_on_is_left_out_of_the_claim_so_old_benchmarks_resume(tmp_path: Path):
    store = Store.open(str(tmp_path / "s.db"))
    model, _ = _generate(store, replace(SETTINGS, guidelines=True))
    claim = get_artifact(store, "ablation", "settings", "settings")
    store.close()
    assert claim is not None and "guidelines" not in claim["settings"]
    assert "guideline" in [prompt_kind(call) for call in model.calls]


def test_no_guidelines_with_the_built_in_examiner_is_exit_2(tmp_path: Path):
    db = str(tmp_path / "s.db")
    result = CliRunner().invoke(
        app, ["generate", "spatial understanding", "--no-guidelines", "--store", db]
    )
    assert result.exit_code == 2 and "--no-guidelines" in result.output
