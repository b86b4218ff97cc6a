"""AutoBench-V end to end: plan → descriptions → the back-end's unit chain → balance.

Every stage writes its finished units to the store as artifacts of the run (the benchmark's
name) before the next stage reads them, so a killed run restarts where it stopped; every model
and image call is cached as well, so even a unit that was in flight pays nothing twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lvlmbench._concurrency import drain
from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend, PlannedAspect
from lvlmbench.autobench._finalize import finalize_benchmark
from lvlmbench.autobench._unit import AcceptedUnit, AttemptRecord, Decision, UnitResult
from lvlmbench.autobench.settings import DEFAULT_ZETA, LEVELS, GenerateSettings, benchmark_name
from lvlmbench.autobench.stages import AttemptContext, Unit, UnitChain, stable_seed
from lvlmbench.images import ImageClient
from lvlmbench.store import Store, get_artifact, put_artifact
from lvlmbench.types import Status

__all__ = ["DEFAULT_ZETA", "LEVELS", "GenerateSettings", "benchmark_name", "generate_benchmark"]

ProgressHook = Callable[[int, int], None]


async def _plan(store: Store, s: GenerateSettings, backend: ExaminerBackend) -> AspectPlan:
    stored = get_artifact(store, s.benchmark, "plan", "plan")
    if stored is not None:
        return AspectPlan.model_validate(stored)
    plan = await backend.plan(s.capability, s.n, s.m)
    put_artifact(store, s.benchmark, "plan", "plan", plan.model_dump(mode="json"))
    return plan


async def _descriptions(
    store: Store, s: GenerateSettings, backend: ExaminerBackend, plan: AspectPlan
) -> list[Unit]:
    limit = asyncio.Semaphore(s.concurrency)

    async def one(aspect: PlannedAspect, level: str) -> list[Unit]:
        key = f"{aspect.general}|{aspect.fine}|{level}"
        stored = get_artifact(store, s.benchmark, "descriptions", key)
        if stored is None:
            async with limit:
                written = await backend.describe(
                    aspect, level, s.per_aspect, stable_seed(s.seed, key)
                )
            stored = {"descriptions": written}
            put_artifact(store, s.benchmark, "descriptions", key, stored)
        return [Unit(f"{key}|{i}", aspect, level, d) for i, d in enumerate(stored["descriptions"])]

    groups = await asyncio.gather(*(one(a, lv) for a in plan.aspects for lv in s.levels))
    return [unit for group in groups for unit in group]


async def _process(
    unit: Unit, s: GenerateSettings, chain: UnitChain, images: ImageClient
) -> UnitResult:
    """Run the chain until an attempt is accepted or the unit is out of attempts."""
    history: list[AttemptRecord] = []
    for attempt in range(s.max_attempts):
        record, keyed = await chain.run(AttemptContext(unit, attempt, s, images), unit)
        if keyed is None:
            history.append(record)
            continue
        check = keyed.questioned.checked.check
        draft = keyed.questioned.checked.rendered.draft
        decision = Decision.ACCEPT if check.score >= 1.0 else Decision.ACCEPT_WITH_ERRORS
        history.append(replace(record, decision=decision))
        accepted = AcceptedUnit(
            image=keyed.questioned.checked.rendered.digest,
            description=draft.description,
            question=keyed.questioned.question,
            errors=check.errors,
            score=check.score,
            checks=check.checks,
            key_check=keyed.key,
            extra=draft.extra,
        )
        return UnitResult(tuple(history), accepted, _unit_meta(unit))
    return UnitResult(tuple(history), None, _unit_meta(unit))


async def generate_benchmark(
    store: Store,
    settings: GenerateSettings,
    backend: ExaminerBackend,
    images: ImageClient,
    on_progress: ProgressHook | None = None,
) -> dict[str, Any]:
    """Run every stage for ``settings`` (resuming finished work) and store the benchmark.

    Returns the generation report that is stored with the benchmark.
    """
    settings.validate()
    started = time.perf_counter()
    _claim(store, settings, f"{backend.name} + {images.spec}")
    plan = await _plan(store, settings, backend)
    units = await _descriptions(store, settings, backend, plan)
    chain = backend.stages()
    done = 0

    async def build(unit: Unit) -> None:
        nonlocal done
        if get_artifact(store, settings.benchmark, "units", unit.key) is None:
            result = await _process(unit, settings, chain, images)
            status = Status.OK if result.accepted is not None else Status.ERROR
            put_artifact(store, settings.benchmark, "units", unit.key, result.to_json(), status)
        done += 1
        if on_progress is not None:
            on_progress(done, len(units))

    await drain(units, build, settings.concurrency)
    return finalize_benchmark(
        store,
        settings,
        plan,
        [u.key for u in units],
        f"{backend.name} + {images.spec}",
        time.perf_counter() - started,
    )


def _claim(store: Store, settings: GenerateSettings, examiner: str) -> None:
    """Record what this run is; refuse to mix a different definition into the same name."""
    wanted: dict[str, Any] = {"settings": _settings_json(settings), "examiner": examiner}
    stored = get_artifact(store, settings.benchmark, "settings", "settings")
    if stored is not None:
        # Settings added since the benchmark was stored were at their defaults then.
        defaults = _settings_json(GenerateSettings(capability=settings.capability))
        stored = {**stored, "settings": {**defaults, **stored["settings"]}}
    if stored is None:
        put_artifact(store, settings.benchmark, "settings", "settings", wanted)
    elif stored != wanted:
        keys = wanted["settings"].keys() | stored["settings"].keys()  # one side may omit a key
        changed = sorted(k for k in keys if stored["settings"].get(k) != wanted["settings"].get(k))
        if stored["examiner"] != examiner:
            changed.append("examiner")
        raise ValueError(
            f"benchmark {settings.benchmark!r} already exists with other settings "
            f"({', '.join(changed)}); give this run another --name"
        )


def _settings_json(settings: GenerateSettings) -> dict[str, Any]:
    values = dataclasses.asdict(settings)
    values.pop("concurrency")  # how fast, not what: may change between resumes
    if values["guidelines"]:
        # Left out when on (the default) so benchmarks stored before the switch still resume.
        values.pop("guidelines")
    encoded: dict[str, Any] = json.loads(json.dumps(values, default=list))
    return encoded


def _unit_meta(unit: Unit) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "capability": unit.aspect.tested,
        "general_aspect": unit.aspect.general,
        "fine_aspect": unit.aspect.fine,
        "difficulty": unit.level,
        "unit": unit.key,
        "description_meta": {k: v for k, v in unit.description.items() if k != "text"},
    }
    if unit.aspect.requested is not None:  # composed from the built-in world: say so
        meta["builtin_capability"] = unit.aspect.capability
        meta["capability_mapping"] = unit.aspect.mapping
    return meta
