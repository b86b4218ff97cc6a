"""Resuming AutoBench-V generation: after a SIGKILL of the CLI, and after an interrupted run of
a model examiner. A resumed run must build the very benchmark an uninterrupted run builds, keep
every unit it already finished, and pay only for the model calls it had not made yet."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from cli_runs import clean_env, units_stored
from examiner_fakes import ScriptedExaminer
from sqlalchemy import delete

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.store import Store, get_artifact, iter_items
from lvlmbench.store import _schema as tables

# -- the CLI, killed ----------------------------------------------------------------------------

CLI_SETTINGS = GenerateSettings(
    capability="spatial understanding", n=1, m=2, per_aspect=2, levels=("easy", "hard"), seed=5
)
CLI_ARGS = [
    "generate",
    "spatial understanding",
    "--examiner",
    "procedural",
    "--images",
    "procedural",
    "-n",
    "1",
    "-k",
    "2",
    "--per-aspect",
    "2",
    "--levels",
    "easy,hard",
    "--seed",
    "5",
    "--json",
]
CLI_UNITS = 1 * 2 * 2 * 2


def _cli(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "lvlmbench", *CLI_ARGS, "--store", str(db), *extra]


def _kill_after_some_units(db: Path, cwd: Path) -> None:
    """Start the CLI and SIGKILL it (and its worker processes) once a unit is stored."""
    proc = subprocess.Popen(
        _cli(db, "--concurrency", "1"),  # one unit at a time: a wide window for the kill
        cwd=cwd,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the kill takes its workers too
    )
    try:
        deadline = time.monotonic() + 120
        while units_stored(db) == 0:
            if proc.poll() is not None:
                output = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"generate exited ({proc.returncode}) before any unit:\n{output}")
            if time.monotonic() > deadline:
                pytest.fail("no unit was stored within 120 s")
            time.sleep(0.005)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout:
            proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def _artifact_rows(store: Store, run: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in store.iter_rows(tables.artifacts, run=run)}


def _benchmark(store: Store, name: str) -> tuple[list[dict[str, Any]], list[bytes]]:
    items = list(iter_items(store, name))
    return [i.model_dump() for i in items], [store.read_image(h) for i in items for h in i.images]


async def _procedural(store: Store, settings: GenerateSettings) -> dict[str, Any]:
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return (await generate_benchmark(store, settings, ProceduralBackend(), images)).as_json()
    finally:
        await images.aclose()


def test_cli_killed_mid_run_resumes_to_the_uninterrupted_benchmark(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    _kill_after_some_units(db, tmp_path)
    killed_at = time.time()
    name = CLI_SETTINGS.benchmark
    store = Store.open(str(db))
    try:
        before = _artifact_rows(store, name)
        done = {k: r for k, r in before.items() if r["stage"] == "units"}
        assert 0 < len(done) < CLI_UNITS, "the kill should land mid-way through the units"
        assert store.count(tables.items) == 0  # killed before the benchmark was finalised

        # Resumed with the default concurrency: how fast is not part of what is built.
        resumed = subprocess.run(
            _cli(db), cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=300
        )
        assert resumed.returncode == 0, resumed.stderr + resumed.stdout
        report = json.loads(resumed.stdout)
        assert report["benchmark"] == name and report["self_check"]["units"] == CLI_UNITS

        after = _artifact_rows(store, name)
        # Every unit finished before the kill is kept as it was (put_artifact replaces rows, so
        # a recomputed unit would carry a new created_at); the rest were computed afterwards.
        for key, row in before.items():
            assert after[key] == row
        new_units = [r for k, r in after.items() if r["stage"] == "units" and k not in before]
        assert len(new_units) == CLI_UNITS - len(done)
        assert all(r["created_at"] >= killed_at for r in new_units)
        resumed_items, resumed_images = _benchmark(store, name)
    finally:
        store.close()

    reference_store = Store.open(str(tmp_path / "reference.db"))
    try:
        reference = asyncio.run(_procedural(reference_store, CLI_SETTINGS))
        reference_items, reference_images = _benchmark(reference_store, name)
    finally:
        reference_store.close()
    assert len(reference_items) == report["items"] > 0
    assert resumed_items == reference_items
    assert resumed_images == reference_images
    for part in ("self_check", "answer_letters", "plan", "diversity"):
        assert report[part] == reference[part], part


# -- a model examiner, interrupted ----------------------------------------------------------------

LLM_SETTINGS = GenerateSettings(
    capability="spatial understanding",
    name="llm-resume",
    n=1,
    m=2,
    per_aspect=2,
    levels=("easy", "hard"),
    k_checks=3,
    seed=2,
)
LLM_UNITS = 1 * 2 * 2 * 2


async def _examined(
    store: Store, model: ScriptedExaminer, settings: GenerateSettings = LLM_SETTINGS
) -> dict[str, Any]:
    client = ModelClient(model, store)
    backend = ModelBackend(client, mode="scene", k_checks=settings.k_checks)
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return (await generate_benchmark(store, settings, backend, images)).as_json()
    finally:
        await images.aclose()


@dataclass
class FullRun:
    store: Store
    report: dict[str, Any]
    calls: int
    kinds: list[str]
    items: list[dict[str, Any]]
    images: list[bytes]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FullRun]:
    store = Store.open(str(tmp_path_factory.mktemp("llm") / "full.db"))
    model = ScriptedExaminer()
    report = asyncio.run(_examined(store, model))
    items, images = _benchmark(store, LLM_SETTINGS.benchmark)
    yield FullRun(store, report, len(model.calls), list(model.kinds), items, images)
    store.close()


def test_uninterrupted_model_run_is_complete(full: FullRun) -> None:
    # The baseline the other tests compare against: every unit accepted, every call made once.
    assert full.report["self_check"]["accepted"] == LLM_UNITS == len(full.items)
    kinds = Counter(full.kinds)
    assert (kinds["general"], kinds["fine"], kinds["guideline"]) == (1, 1, 2)
    assert kinds["description"] == kinds["scene"] == kinds["checks"] == LLM_UNITS
    assert kinds["answer"] == LLM_UNITS * LLM_SETTINGS.k_checks
    assert kinds["mc"] + kinds["tf"] == LLM_UNITS
    assert full.calls == sum(kinds.values())


def test_second_run_in_the_same_store_makes_no_model_calls(full: FullRun) -> None:
    fresh = ScriptedExaminer()
    report = asyncio.run(_examined(full.store, fresh))
    assert fresh.calls == []
    assert _benchmark(full.store, LLM_SETTINGS.benchmark) == (full.items, full.images)
    assert report["self_check"] == full.report["self_check"]


def _stage_after(kinds: list[str], stage: str) -> int:
    """Calls made before the first call of ``stage`` in an uninterrupted run."""
    return kinds.index(stage)


@pytest.mark.parametrize("where", ["plan", "descriptions", "units"])
def test_interrupted_model_run_resumes_paying_only_for_the_rest(
    full: FullRun, tmp_path: Path, where: str
) -> None:
    first_description = _stage_after(full.kinds, "description")
    first_unit_call = _stage_after(full.kinds, "scene")
    stop = {
        "plan": 3,
        "descriptions": first_description + LLM_UNITS // 2,
        "units": (first_unit_call + full.calls) // 2,
    }[where]
    store = Store.open(str(tmp_path / "interrupted.db"))
    try:
        stuck = ScriptedExaminer(block_after=stop)

        async def interrupt() -> None:
            # Two units in flight, so that some finish before the stop (with all eight in
            # flight at once none would); the resumed run goes back to the default.
            slow = replace(LLM_SETTINGS, concurrency=2)
            task = asyncio.create_task(_examined(store, stuck, slow))
            while stuck.blocked == 0:
                assert not task.done(), "the run ended before it reached the stop"
                await asyncio.sleep(0.002)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupt())
        assert stuck.completed == stop
        name = LLM_SETTINGS.benchmark
        units_done = store.count(tables.artifacts, run=name, stage="units")
        descriptions_done = store.count(tables.artifacts, run=name, stage="descriptions")
        planned = get_artifact(store, name, "plan", "plan") is not None
        if where == "plan":
            assert not planned
        elif where == "descriptions":
            assert planned and 0 < descriptions_done < LLM_UNITS // LLM_SETTINGS.per_aspect
        else:
            assert planned and 0 < units_done < LLM_UNITS

        fresh = ScriptedExaminer()
        report = asyncio.run(_examined(store, fresh))
        # Every call completed before the interruption was cached; nothing is paid twice.
        assert stop + len(fresh.calls) == full.calls
        assert Counter(stuck.kinds) + Counter(fresh.kinds) == Counter(full.kinds)
        assert _benchmark(store, name) == (full.items, full.images)
        assert report["self_check"] == full.report["self_check"]
        assert report["plan"] == full.report["plan"]
    finally:
        store.close()


def test_benchmark_rebuilt_from_the_model_cache_alone_makes_no_calls(full: FullRun) -> None:
    """With every stage artifact, item and the benchmark row gone, only the call cache is left:
    a rerun must replay the whole benchmark from it without asking the model anything."""
    name = LLM_SETTINGS.benchmark
    with full.store.engine.begin() as conn:
        conn.execute(delete(tables.artifacts).where(tables.artifacts.c.run == name))
        conn.execute(delete(tables.items).where(tables.items.c.benchmark == name))
        conn.execute(delete(tables.benchmarks).where(tables.benchmarks.c.name == name))
    assert list(iter_items(full.store, name)) == []
    fresh = ScriptedExaminer()
    report = asyncio.run(_examined(full.store, fresh))
    assert fresh.calls == []
    assert _benchmark(full.store, name) == (full.items, full.images)
    assert report["self_check"] == full.report["self_check"]
