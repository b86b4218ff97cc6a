"""AutoBench-V end to end: plan → descriptions → render → self-check → question → balance.

Every stage writes its finished units to the store as artifacts of the run (the benchmark's
name) before the next stage reads them, so a killed run restarts where it stopped; every model
and image call is cached as well, so even a unit that was in flight pays nothing twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lvlmbench._concurrency import drain
from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend, PlannedAspect, UnitDraft
from lvlmbench.autobench._finalize import finalize_benchmark
from lvlmbench.autobench.diversity import exclusion_schedule
from lvlmbench.ids import check_benchmark_name
from lvlmbench.images import ImageClient, ImageRequest
from lvlmbench.store import Store, get_artifact, put_artifact
from lvlmbench.types import Status

__all__ = ["DEFAULT_ZETA", "LEVELS", "GenerateSettings", "benchmark_name", "generate_benchmark"]

LEVELS = ("easy", "medium", "hard")
DEFAULT_ZETA: Mapping[str, float] = {"easy": 1.0, "medium": 0.8, "hard": 0.8}
"""Self-check thresholds per level (the paper's): below ζ the image is regenerated."""

ProgressHook = Callable[[int, int], None]


def benchmark_name(capability: str, seed: int) -> str:
    """Default benchmark name: the capability as a slug plus the seed."""
    slug = "-".join("".join(c if c.isalnum() else " " for c in capability.lower()).split())
    return f"{slug or 'capability'}-s{seed}"


@dataclass(frozen=True)
class GenerateSettings:
    """Everything that defines a generated benchmark (stored with it)."""

    capability: str
    name: str | None = None
    n: int = 4
    """General aspects (paper: 4)."""
    m: int = 6
    """Fine-grained aspects per general aspect (paper: 6)."""
    per_aspect: int = 10
    """Images per fine aspect and level, ω (paper: 10)."""
    levels: tuple[str, ...] = LEVELS
    seed: int = 0
    zeta: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_ZETA))
    max_attempts: int = 3
    """Renders per unit before it is dropped (the first one included)."""
    k_checks: int = 5
    """Self-check questions per image (alignment = correct / k)."""
    tf_share: float = 0.2
    """Share of true/false questions when a model examiner writes them."""
    diversity_graph: bool = True
    """Semantic-graph exclusion of repeated themes (model examiners' descriptions)."""
    exclusions: str = "i"
    """The graph's schedule f(i): nodes banned after round i (``i``, ``2i`` or a number)."""
    image_size: int = 512
    concurrency: int = 8
    """Units in flight at once."""
    guidelines: bool = True
    """Write a guideline per fine aspect; off for the paper's ablation (Table 4)."""

    @property
    def benchmark(self) -> str:
        """The benchmark's name in the store."""
        return self.name or benchmark_name(self.capability, self.seed)

    def validate(self) -> None:
        """Raise ValueError naming the bad setting."""
        if not self.capability.strip():
            raise ValueError("capability is empty: name the capability to test")
        check_benchmark_name(self.benchmark)
        if min(self.n, self.m, self.per_aspect, self.max_attempts) < 1:
            raise ValueError("n, m, per_aspect and max_attempts must all be at least 1")
        if min(self.concurrency, self.k_checks, self.image_size) < 1:
            # A concurrency of 0 would make every unit wait forever for a slot.
            raise ValueError(
                f"concurrency ({self.concurrency}), k_checks ({self.k_checks}) and image_size "
                f"({self.image_size}) must all be at least 1"
            )
        if not 0 <= self.tf_share <= 1:
            raise ValueError(f"tf_share {self.tf_share}: must be between 0 and 1")
        exclusion_schedule(self.exclusions)  # raises ValueError naming the expected forms
        unknown = [lv for lv in self.levels if lv not in LEVELS]
        if unknown or not self.levels:
            raise ValueError(f"levels {list(self.levels)}: choose from {', '.join(LEVELS)}")
        missing = [lv for lv in self.levels if lv not in self.zeta]
        if missing:
            raise ValueError(f"no threshold ζ for level(s) {missing}")


def _seed(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12], 16)


@dataclass
class _Unit:
    key: str
    aspect: PlannedAspect
    level: str
    description: dict[str, Any]


async def _plan(store: Store, s: GenerateSettings, backend: ExaminerBackend) -> AspectPlan:
    stored = get_artifact(store, s.benchmark, "plan", "plan")
    if stored is not None:
        return AspectPlan.model_validate(stored)
    plan = await backend.plan(s.capability, s.n, s.m)
    put_artifact(store, s.benchmark, "plan", "plan", plan.model_dump(mode="json"))
    return plan


async def _descriptions(
    store: Store, s: GenerateSettings, backend: ExaminerBackend, plan: AspectPlan
) -> list[_Unit]:
    limit = asyncio.Semaphore(s.concurrency)

    async def one(aspect: PlannedAspect, level: str) -> list[_Unit]:
        key = f"{aspect.general}|{aspect.fine}|{level}"
        stored = get_artifact(store, s.benchmark, "descriptions", key)
        if stored is None:
            async with limit:
                written = await backend.describe(aspect, level, s.per_aspect, _seed(s.seed, key))
            stored = {"descriptions": written}
            put_artifact(store, s.benchmark, "descriptions", key, stored)
        return [_Unit(f"{key}|{i}", aspect, level, d) for i, d in enumerate(stored["descriptions"])]

    groups = await asyncio.gather(*(one(a, lv) for a in plan.aspects for lv in s.levels))
    return [unit for group in groups for unit in group]


def _kind(s: GenerateSettings, key: str) -> Literal["mc", "tf"]:
    return "tf" if (_seed(s.seed, "kind", key) % 1000) / 1000 < s.tf_share else "mc"


async def _render(
    images: ImageClient, s: GenerateSettings, draft: UnitDraft, unit: _Unit, attempt: int
) -> tuple[bytes | None, str | None, str | None]:
    request = ImageRequest(
        prompt=draft.description,
        scene=draft.scene,
        width=s.image_size,
        height=s.image_size,
        seed=_seed(s.seed, unit.key, attempt) % 2**31,
    )
    output = await images.generate(request)
    if not output.ok or output.png is None:
        return None, None, output.reason or output.status.value
    return output.png, hashlib.sha256(output.png).hexdigest(), None


async def _process(
    unit: _Unit, s: GenerateSettings, backend: ExaminerBackend, images: ImageClient
) -> dict[str, Any]:
    """Draft, render and self-check until accepted or out of attempts; then the question."""
    history: list[dict[str, Any]] = []
    zeta = s.zeta[unit.level]
    for attempt in range(s.max_attempts):
        draft = await backend.draft(unit.aspect, unit.level, unit.description, s.seed, attempt)
        if draft.failure:
            history.append({"attempt": attempt, "decision": "no draft", "reason": draft.failure})
            continue
        png, digest, failure = await _render(images, s, draft, unit, attempt)
        if png is None or digest is None:
            history.append({"attempt": attempt, "decision": "no image", "reason": failure})
            continue
        check = await backend.validate(draft, png, unit.level)
        record = {
            "attempt": attempt,
            "image": digest,
            "score": check.score,
            "errors": check.errors,
            "method": check.method,
        }
        if check.score < zeta:
            history.append({**record, "decision": "reject"})
            continue
        question = await backend.question(draft, check.errors, unit.level, _kind(s, unit.key))
        if isinstance(question, str):
            history.append({**record, "decision": "no question", "reason": question})
            continue
        key = await backend.verify_key(draft, question)
        record["key_check"] = key.verdict
        if key.verdict == "mismatch":  # the drawn program contradicts the key: redraw
            history.append(
                {**record, "decision": "reject", "reason": f"key mismatch: {key.reason}"}
            )
            continue
        decision = "accept" if check.score >= 1.0 else "accept_with_errors"
        history.append({**record, "decision": decision})
        return {
            "status": "accepted",
            "history": history,
            "image": digest,
            "description": draft.description,
            "question": question.model_dump(),
            "errors": check.errors,
            "score": check.score,
            "checks": [c.model_dump() for c in check.checks],
            "key_check": key.model_dump(),
            "extra": draft.extra,
        }
    return {"status": "dropped", "history": history}


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
    done = 0

    async def build(unit: _Unit) -> None:
        nonlocal done
        if get_artifact(store, settings.benchmark, "units", unit.key) is None:
            result = await _process(unit, settings, backend, images)
            status = Status.OK if result["status"] == "accepted" else Status.ERROR
            record = {**result, "meta": _unit_meta(unit)}
            put_artifact(store, settings.benchmark, "units", unit.key, record, status)
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


def _unit_meta(unit: _Unit) -> dict[str, Any]:
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
