"""A real LLM examiner: llama.cpp + Gemma 3 270M drives AutoBench-V in scene-program mode.

A 270M text-only model writes poor aspects and scene programs and cannot see images; what must
hold is that every stage records what went wrong (invalid JSON, duplicates, unrenderable
programs, failed checks) and the run still finishes, and that a rerun pays for nothing twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.store import Store, get_artifact
from lvlmbench.store import _schema as tables

pytestmark = pytest.mark.integration

REPLY_CAP = 200
SETTINGS = GenerateSettings(
    capability="spatial understanding",
    n=1,
    m=1,
    per_aspect=1,
    levels=("easy",),
    max_attempts=1,
    k_checks=1,
    concurrency=2,
)


async def _generate(store: Store, server: Any) -> dict[str, Any]:
    # A 270M model rambles to each stage's token limit; the cap keeps the test to minutes.
    model = load_chat_model(
        f"openai/{server.model}",
        base_url=server.base_url,
        max_tokens=str(REPLY_CAP),
        json_mode="none",
    )
    backend = ModelBackend(ModelClient(model, store), mode="scene", k_checks=SETTINGS.k_checks)
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return (await generate_benchmark(store, SETTINGS, backend, images)).as_json()
    finally:
        await backend.aclose()
        await images.aclose()


async def test_gemma_examiner_in_scene_mode_finishes_and_records_failures(
    llama_server: Any, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    before = llama_server.chat_requests()
    report = await _generate(store, llama_server)
    made = llama_server.chat_requests() - before
    assert made > 0

    planned = SETTINGS.n * SETTINGS.m * SETTINGS.per_aspect * len(SETTINGS.levels)
    check = report["self_check"]
    units = [
        row for row in store.iter_rows(tables.artifacts, run=SETTINGS.benchmark, stage="units")
    ]
    # Every planned unit ends accepted or dropped with its reason; nothing is silently lost.
    assert check["units"] <= planned and check["accepted"] + check["dropped"] == check["units"]
    assert len(units) == check["units"]
    if check["dropped"]:
        assert check["failure_reasons"], "a dropped unit must say why"
    items = store.count(tables.items, benchmark=SETTINGS.benchmark)
    assert items == check["accepted"]
    assert get_artifact(store, SETTINGS.benchmark, "plan", "plan") is not None

    # The rerun resumes from the store: the same report and not one more request.
    again = await _generate(store, llama_server)
    assert llama_server.chat_requests() - before == made
    assert again["self_check"] == check
