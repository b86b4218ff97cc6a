"""Running examinees from Python: generate, evaluate, evaluate_many."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from lvlmbench.autobench.pipeline import LEVELS
from lvlmbench.models import (
    GenerationSettings,
    as_settings,
)
from lvlmbench.store import GenerationReport
from lvlmbench.types import GenerationConfig
from lvlmbench.workflows import (
    EvalSet,
    EvaluateOptions,
    EvaluateResult,
    EvaluateSetResult,
    Generated,
    GenerateOptions,
    ProgressCallback,
    StoreLike,
    check_options,
    generate_several,
    opened_store,
    plan_several,
    progress_for,
    run_sync,
)
from lvlmbench.workflows import evaluate as evaluate_benchmark
from lvlmbench.workflows import evaluate_many as evaluate_several

__all__ = [
    "EvaluationResult",
    "GenerationResult",
    "evaluate",
    "evaluate_many",
    "generate",
    "generate_many",
]


@dataclass(frozen=True)
class GenerationResult:
    """What :func:`generate` built: the benchmark's name, its item count and the pipeline's
    report (self-check figures, answer letters, diversity, timings)."""

    benchmark: str
    items: int
    report: GenerationReport = field(repr=False)
    """The generation report stored with the benchmark (``report.as_json()`` for its JSON)."""
    rounds: Generated | None = field(default=None, repr=False)
    """A generation in rounds (``budget``, ``budget_usd``, ``until``): what it built, spent
    and decided, the examinees' runs in ``rounds.summaries``; None for one built at once."""


EvaluationResult = EvaluateResult
"""What :func:`evaluate` did and found (the use case's result, as the command gets it)."""


_opened = opened_store

_run = run_sync
"""Run a coroutine to completion from sync code, also under a running loop (Jupyter)."""


def generate(
    capability: str,
    *,
    store: StoreLike = None,
    examiner: str = "procedural",
    images: str = "procedural",
    mode: Literal["scene", "text"] = "scene",
    n: int = 4,
    m: int = 6,
    per_aspect: int = 10,
    levels: Sequence[str] = LEVELS,
    seed: int = 0,
    name: str | None = None,
    zeta: str | None = None,
    max_attempts: int = 3,
    tf_share: float = 0.2,
    diversity_graph: bool = True,
    exclusions: str = "i",
    k_checks: int = 5,
    guidelines: bool = True,
    image_size: int = 512,
    concurrency: int = 8,
    budget: int | None = None,
    budget_usd: float | None = None,
    until: str | None = None,
    model: Sequence[str] | None = None,
    alpha: float = 0.05,
    first_round: int = 50,
) -> GenerationResult:
    """Generate (or resume) an AutoBench-V benchmark for ``capability``: ``n`` general aspects
    of ``m`` fine aspects, ``per_aspect`` images per fine aspect and level, written by
    ``examiner`` and drawn by ``images`` (``procedural`` for both runs offline). The options
    are `lvlmbench generate`'s, with its defaults and meaning: ``budget``, ``budget_usd`` or
    ``until`` (with the examinees in ``model``) build in rounds, reported in ``rounds``.
    Refused options raise InvalidOptions (a ValueError) before the store is opened."""
    options = GenerateOptions(
        capability=capability, examiner=examiner, images=images, mode=mode, n=n, m=m,
        per_aspect=per_aspect, levels=",".join(levels), seed=seed, name=name, zeta=zeta,
        max_attempts=max_attempts, tf_share=tf_share, diversity_graph=diversity_graph,
        exclusions=exclusions, k_checks=k_checks, guidelines=guidelines,
        image_size=image_size, concurrency=concurrency, budget=budget, budget_usd=budget_usd,
        until=until,
        models=tuple(model or ()), alpha=alpha, first_round=first_round,
    )  # fmt: skip
    return generate_many([capability], options, store=store)[0]


def generate_many(
    capabilities: Sequence[str], options: GenerateOptions, *, store: StoreLike = None
) -> list[GenerationResult]:
    """``lvlmbench generate CAP1 CAP2 ...`` in Python: one benchmark per capability, each
    built with ``options`` (its ``capability`` replaced by each in turn; a ``name`` is refused
    with several), all checked before the first is built."""
    planned = plan_several(options, capabilities)
    with _opened(store) as opened:
        opened.require_writable()
        made = _run(generate_several(opened, planned))
    return [
        GenerationResult(
            benchmark=m.benchmark, items=m.report.items or 0, report=m.report, rounds=m.rounds
        )
        for m in made
    ]


def evaluate(
    benchmark: str,
    models: Sequence[str],
    *,
    store: StoreLike = None,
    by: Sequence[str] = ("difficulty",),
    variant: str = "default",
    concurrency: int | None = None,
    config: GenerationConfig | GenerationSettings | None = None,
    extract_with: str | None = None,
    limit: int | None = None,
    limit_seed: int = 0,
    epochs: int = 1,
    workers: int = 1,
    until: str | None = None,
    budget: int | None = None,
    budget_usd: float | None = None,
    alpha: float = 0.05,
    first_round: int = 50,
    progress: ProgressCallback | None = None,
) -> EvaluationResult:
    """``lvlmbench evaluate`` in Python: the same use case with the same options and defaults
    (:class:`~lvlmbench.workflows.EvaluateOptions` documents each). Ask every model every item
    of ``benchmark`` it has not answered yet, then score them all: accuracy per group of ``by``
    and overall, with 95% intervals over items (clustered where items share a source). A name
    with stored responses but no provider (an imported prediction file) is scored, not run.

    ``config``: generation settings for every model run, as the command's flags
    (``GenerationConfig(temperature=0.5)`` is ``--temperature 0.5``; a field not given keeps
    the command's default, e.g. a reply budget of EXAMINEE_MAX_TOKENS). They become part of
    each model's name in the store, as the flags do, so answers under other settings are never
    reused for each other; the result's rows are under those names. ``progress``: called with
    (model, items done, items) as each examinee's items finish. Refused options raise
    InvalidOptions (a ValueError) before anything is written."""
    options = EvaluateOptions(
        models=models,
        variant=variant,
        by=by,
        concurrency=concurrency,
        extract_with=extract_with,
        limit=limit,
        limit_seed=limit_seed,
        epochs=epochs,
        settings=as_settings(config),
        workers=workers,
        until=until,
        budget=budget,
        budget_usd=budget_usd,
        alpha=alpha,
        first_round=first_round,
    )
    check_options(options)
    with _opened(store) as opened:
        return evaluate_benchmark(opened, benchmark, options, progress_for(progress))


def evaluate_many(
    eval_set: EvalSet, *, store: StoreLike = None, progress: ProgressCallback | None = None
) -> EvaluateSetResult:
    """``lvlmbench evaluate B1 B2 ... -m ...`` (or ``evaluate --set FILE``) in Python: each of
    ``EvalSet(benchmarks, EvaluateOptions(models=...))`` (or :func:`read_eval_set`'s file)
    evaluated as :func:`evaluate` does, then one summary across them (``result.rows``). Every
    benchmark is checked before the first is asked."""
    check_options(eval_set.options)
    with _opened(store) as opened:
        return evaluate_several(
            opened, eval_set.benchmarks, eval_set.options, progress_for(progress)
        )
