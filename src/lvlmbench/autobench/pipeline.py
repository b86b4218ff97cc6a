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
from functools import partial
from typing import Any

from lvlmbench._concurrency import drain
from lvlmbench.autobench._backend import (
    AspectPlan,
    ExaminerBackend,
    PlannedAspect,
    StoredDescription,
)
from lvlmbench.autobench._drafts import stored_descriptions
from lvlmbench.autobench._finalize import finalize_benchmark
from lvlmbench.autobench._unit import AcceptedUnit, AttemptRecord, Decision, UnitResult
from lvlmbench.autobench.keyplan import key_plan
from lvlmbench.autobench.settings import DEFAULT_ZETA, LEVELS, GenerateSettings, benchmark_name
from lvlmbench.autobench.stages import (
    AttemptContext,
    Unit,
    UnitChain,
    group_key,
    stable_seed,
    unit_key,
)
from lvlmbench.images import ImageClient
from lvlmbench.store import (
    GenerationReport,
    Store,
    artifact_id,
    artifact_ids,
    get_artifact,
    put_artifact,
)
from lvlmbench.types import Status

__all__ = [
    "DEFAULT_ZETA",
    "LEVELS",
    "GenerateSettings",
    "benchmark_name",
    "claim",
    "described",
    "generate_benchmark",
    "group_key",
    "load_plan",
    "process_unit",
    "store_unit",
    "unit_meta",
]

ProgressHook = Callable[[int, int], None]


async def load_plan(store: Store, s: GenerateSettings, backend: ExaminerBackend) -> AspectPlan:
    """The stored plan, or the examiner's new one (stored)."""
    stored = get_artifact(store, s.benchmark, "plan", "plan")
    if stored is not None:
        return AspectPlan.model_validate(stored)
    plan = await backend.plan(s.capability, s.n, s.m)
    put_artifact(store, s.benchmark, "plan", "plan", plan.model_dump(mode="json"))
    return plan


async def described(
    store: Store,
    s: GenerateSettings,
    backend: ExaminerBackend,
    aspect: PlannedAspect,
    level: str,
    count: int,
) -> list[StoredDescription]:
    """At least the first ``count`` descriptions of ``aspect`` at ``level`` (stored ones read).

    A run in rounds writes a group's descriptions a few at a time: a description is written
    after the earlier ones of its group (the diversity graph bans their themes), so asking for
    more replays the stored ones' calls from the cache and pays only for the new ones, and the
    stored ones keep their places."""
    key = group_key(aspect, level)
    stored = get_artifact(store, s.benchmark, "descriptions", key)
    have = [] if stored is None else stored_descriptions(stored["descriptions"])
    if stored is not None and len(have) >= count:
        return have
    written = await backend.describe(aspect, level, count, stable_seed(s.seed, key))
    have = have + written[len(have) :]
    dumped = [d.model_dump(mode="json") for d in have]
    put_artifact(store, s.benchmark, "descriptions", key, {"descriptions": dumped})
    return have


async def _descriptions(
    store: Store, s: GenerateSettings, backend: ExaminerBackend, plan: AspectPlan
) -> list[Unit]:
    limit = asyncio.Semaphore(s.concurrency)
    assigned = key_plan(plan, s, partial(backend.question_kind, s))

    async def one(aspect: PlannedAspect, level: str) -> list[Unit]:
        async with limit:
            written = await described(store, s, backend, aspect, level, s.per_aspect)
        keys = [unit_key(aspect, level, i) for i in range(s.per_aspect)]
        return [Unit(k, aspect, level, d, assigned[k]) for k, d in zip(keys, written, strict=False)]

    groups = await asyncio.gather(*(one(a, lv) for a in plan.aspects for lv in s.levels))
    return [unit for group in groups for unit in group]


async def process_unit(
    unit: Unit, s: GenerateSettings, chain: UnitChain, images: ImageClient
) -> UnitResult:
    """Run the chain until an attempt is accepted or the unit is out of attempts."""
    history: list[AttemptRecord] = []
    for attempt in range(s.max_attempts):
        record, keyed = await chain.run(AttemptContext(unit, attempt, s, images), unit)
        if keyed is None:
            history.append(record)
            if record.decision.final:
                break
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
            # The program the key was checked against, kept with the item for audits.
            extra=draft.extra
            if draft.scene is None
            else {**draft.extra, "scene_program": draft.scene},
        )
        return UnitResult(tuple(history), accepted, unit_meta(unit))
    return UnitResult(tuple(history), None, unit_meta(unit))


def store_unit(store: Store, s: GenerateSettings, key: str, result: UnitResult) -> None:
    """Store a finished unit (what a resumed run skips)."""
    status = Status.OK if result.accepted is not None else Status.ERROR
    put_artifact(store, s.benchmark, "units", key, result.to_json(), status)


async def generate_benchmark(
    store: Store,
    settings: GenerateSettings,
    backend: ExaminerBackend,
    images: ImageClient,
    on_progress: ProgressHook | None = None,
) -> GenerationReport:
    """Run every stage for ``settings`` (resuming finished work) and store the benchmark.

    Returns the generation report that is stored with the benchmark.
    """
    settings.validate()
    started = time.perf_counter()
    claim(store, settings, f"{backend.name} + {images.spec}")
    plan = await load_plan(store, settings, backend)
    units = await _descriptions(store, settings, backend, plan)
    chain = backend.stages()
    done = 0
    # One query for what a resumed run skips, not one per unit. A unit that another run on
    # the same store finishes meanwhile is built again here, from the call cache: the same
    # result, and nothing paid twice.
    finished = artifact_ids(store, settings.benchmark, "units")

    async def build(unit: Unit) -> None:
        nonlocal done
        if artifact_id(settings.benchmark, "units", unit.key) not in finished:
            store_unit(store, settings, unit.key, await process_unit(unit, settings, chain, images))
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
        measure=images.prompt_length,
    )


def claim(store: Store, settings: GenerateSettings, examiner: str) -> None:
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
        # Each difference with both values, so the resume that was meant is plain.
        changed = [
            f"{k}: stored {_shown(stored['settings'].get(k))}, "
            f"asked {_shown(wanted['settings'].get(k))}"
            for k in sorted(keys)
            if stored["settings"].get(k) != wanted["settings"].get(k)
        ]
        if stored["examiner"] != examiner:
            changed.append("examiner")
        raise ValueError(
            f"benchmark {settings.benchmark!r} already exists with other settings "
            f"({'; '.join(changed)}); resume it with the stored settings, or give this run "
            "another --name"
        )


def _shown(value: Any) -> str:
    """A setting's value in a refusal (None: a key left out at its default)."""
    return "the default" if value is None else json.dumps(value, ensure_ascii=False)


def _settings_json(settings: GenerateSettings) -> dict[str, Any]:
    values = dataclasses.asdict(settings)
    values.pop("concurrency")  # how fast, not what: may change between resumes
    if values["guidelines"]:
        # Left out when on (the default) so benchmarks stored before the switch still resume.
        values.pop("guidelines")
    encoded: dict[str, Any] = json.loads(json.dumps(values, default=list))
    return encoded


def unit_meta(unit: Unit) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "capability": unit.aspect.tested,
        "general_aspect": unit.aspect.general,
        "fine_aspect": unit.aspect.fine,
        "difficulty": unit.level,
        "unit": unit.key,
        "description_meta": unit.description.model_dump(mode="json", exclude={"text"}),
    }
    if unit.aspect.requested is not None:  # composed from the built-in world: say so
        meta["builtin_capability"] = unit.aspect.capability
        meta["capability_mapping"] = unit.aspect.mapping
    return meta
