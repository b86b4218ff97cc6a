"""The semantic-graph setting, its schedule f(i) and k are part of a benchmark's settings: a
resume with another value is refused (it would mix groups made with and without bans), a store
written before they were recorded resumes at their defaults, and the CLI sets them."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import ScriptedExaminer
from typer.testing import CliRunner

from lvlmbench.autobench._backend import PlannedAspect
from lvlmbench.autobench._drafts import Description
from lvlmbench.autobench.diversity import exclusion_schedule
from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.cli import app
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.store import Store, get_artifact, iter_artifacts, put_artifact

SETTINGS = GenerateSettings(
    capability="spatial understanding", n=1, m=1, per_aspect=1, levels=("easy",), seed=4
)
runner = CliRunner()


async def _generate(store: Store, settings: GenerateSettings) -> dict[str, Any]:
    images = ImageClient(load_image_model("procedural"), store)
    try:
        backend = ProceduralBackend(k_checks=settings.k_checks)
        return (await generate_benchmark(store, settings, backend, images)).as_json()
    finally:
        await images.aclose()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"diversity_graph": False}, "diversity_graph"),
        ({"exclusions": "2i"}, "exclusions"),
        ({"k_checks": 2}, "k_checks"),
    ],
)
def test_a_resume_with_another_graph_setting_is_refused(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        first = asyncio.run(_generate(store, SETTINGS))
        stored = get_artifact(store, SETTINGS.benchmark, "settings", "settings")
        assert stored is not None
        assert stored["settings"]["diversity_graph"] is True
        assert (stored["settings"]["exclusions"], stored["settings"]["k_checks"]) == ("i", 5)
        with pytest.raises(ValueError, match=rf"other settings \({named}: stored "):
            asyncio.run(_generate(store, replace(SETTINGS, **change)))
        # The same settings resume (nothing new to do) and the report is unchanged.
        again = asyncio.run(_generate(store, SETTINGS))
        assert again["self_check"] == first["self_check"]
    finally:
        store.close()


def test_a_store_from_before_the_graph_setting_resumes_at_the_defaults(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        asyncio.run(_generate(store, SETTINGS))
        stored = get_artifact(store, SETTINGS.benchmark, "settings", "settings")
        assert stored is not None
        legacy = {
            k: v
            for k, v in stored["settings"].items()
            if k not in ("diversity_graph", "exclusions")
        }
        put_artifact(
            store, SETTINGS.benchmark, "settings", "settings", {**stored, "settings": legacy}
        )
        asyncio.run(_generate(store, SETTINGS))  # no refusal
        with pytest.raises(ValueError, match="diversity_graph"):
            asyncio.run(_generate(store, replace(SETTINGS, diversity_graph=False)))
    finally:
        store.close()


def test_exclusion_schedules() -> None:
    assert [exclusion_schedule("i")(i) for i in (1, 2, 3)] == [1, 2, 3]
    assert [exclusion_schedule("2i")(i) for i in (1, 2, 3)] == [2, 4, 6]
    assert [exclusion_schedule(" 3 * i ")(i) for i in (1, 2)] == [3, 6]
    assert [exclusion_schedule("4")(i) for i in (1, 7)] == [4, 4]
    for bad in ("", "i2", "-1", "x", "1.5"):
        with pytest.raises(ValueError, match="expected i, a multiple"):
            exclusion_schedule(bad)
    with pytest.raises(ValueError, match="exclusion schedule 'sq'"):
        replace(SETTINGS, exclusions="sq").validate()


async def test_the_schedule_decides_how_many_words_each_round_bans(tmp_path: Path) -> None:
    """Round 1 names a topic and three keywords (4 nodes); with f(i) = 2i the 2 highest-degree
    words are banned after round 1 and the 4 highest after round 2 (the paper's per-round
    reading: the list is recomputed each round, not grown), so rounds 2 and 3 see 2 and 4."""
    store = Store.open(str(tmp_path / "s.db"))
    aspect = PlannedAspect(
        capability="c", general="Relative position", fine="Left and right", guideline="g"
    )
    try:
        for spec, shown in (("2i", [0, 2, 4]), ("i", [0, 1, 2])):
            client = ModelClient(ScriptedExaminer(), store)
            backend = ModelBackend(client, exclusions=exclusion_schedule(spec))
            written = await backend.describe(aspect, "easy", 3, seed=1)
            assert all(isinstance(d, Description) for d in written)
            assert [len(d.banned_words_shown) for d in written] == shown
    finally:
        store.close()


def test_cli_sets_and_stores_the_graph_settings(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    args = ["generate", "spatial understanding", "-n", "1", "-k", "1", "--per-aspect", "1"]
    args += ["--levels", "easy", "--store", str(db), "--json"]
    made = runner.invoke(app, [*args, "--k-checks", "1", "--exclusions", "2i"])
    assert made.exit_code == 0, made.output
    store = Store.open(str(db))
    try:
        name = "spatial-understanding-s0"
        stored = get_artifact(store, name, "settings", "settings")
        assert stored is not None
        assert (stored["settings"]["k_checks"], stored["settings"]["exclusions"]) == (1, "2i")
        units = list(iter_artifacts(store, name, "units"))
        assert units and all(len(u["checks"]) == 1 for u in units if u["status"] == "accepted")
    finally:
        store.close()
    refused = runner.invoke(
        app, [*args, "--k-checks", "1", "--exclusions", "2i", "--no-diversity-graph"]
    )
    assert refused.exit_code == 2
    said = " ".join(refused.output.split())
    assert "other settings (diversity_graph: stored true, asked false)" in said
    bad = runner.invoke(app, [*args, "--exclusions", "often"])
    assert bad.exit_code == 2 and "exclusion schedule 'often'" in bad.output
