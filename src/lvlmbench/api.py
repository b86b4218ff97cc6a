"""The Python API for notebooks and scripts: generate, evaluate, judge, rate, compare, report, ls.

Each function takes plain arguments and returns typed results from the library (the same
functions the ``lvlmbench`` commands call): nothing is printed, every model call goes through
the cached :class:`~lvlmbench.models.ModelClient`, and every step resumes, so running a cell
again asks nothing twice. ``store`` is a :class:`~lvlmbench.store.Store` (used as is, left
open) or a SQLite path / database URL (opened and closed by the call; ``None`` is
``$LVLMBENCH_STORE`` or ``./lvlmbench.db``). Bad arguments raise ValueError (or the library's
RegistryError / StoreError) naming what is wrong, before anything is written.

The functions are synchronous; inside a running event loop (Jupyter) they run their work on a
private loop in a worker thread, so ``api.evaluate(...)`` works in a notebook cell as is.

>>> from lvlmbench import api
>>> made = api.generate("spatial understanding", store="my.db", n=2, m=2, per_aspect=1)
>>> result = api.evaluate(made.benchmark, ["baseline/random"], store="my.db")
>>> result.overall[0].accuracy  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lvlmbench.autobench.pipeline import LEVELS
from lvlmbench.judging import (
    RATING_ROUNDS,
    RATING_SEED,
    REFERENCE,
    JudgeRunSummary,
    PairwiseReport,
)
from lvlmbench.models import (
    DEFAULT_CONCURRENCY,
    GenerationSettings,
    as_settings,
    load_chat_model,
    resolve_spec,
)
from lvlmbench.report import ReportFiles
from lvlmbench.store import (
    ListedBenchmark,
    list_stored,
)
from lvlmbench.types import GenerationConfig
from lvlmbench.workflows import (
    AgreementOptions,
    AgreementResult,
    EvaluateOptions,
    EvaluateResult,
    ExportOptions,
    ExportResult,
    Generated,
    GenerateOptions,
    InvalidOptions,
    JudgeOptions,
    ProgressCallback,
    RateOptions,
    StoreLike,
    check_export_options,
    check_generate_options,
    check_judge_options,
    check_options,
    export_benchmark,
    judge_benchmark,
    opened_store,
    progress_for,
    run_sync,
)
from lvlmbench.workflows import agreement as agreement_of
from lvlmbench.workflows import evaluate as evaluate_benchmark
from lvlmbench.workflows import generate as generate_benchmark
from lvlmbench.workflows import rate as rate_benchmark
from lvlmbench.workflows.compare import CompareResult
from lvlmbench.workflows.compare import compare_models as compare
from lvlmbench.workflows.importing import ImportOptions, ImportResult, import_format
from lvlmbench.workflows.importing import import_file as _import_file
from lvlmbench.workflows.reporting import ReportOptions, make_report

__all__ = [
    "AgreementResult",
    "CompareResult",
    "EvaluationResult",
    "ExportResult",
    "GenerationResult",
    "ProgressCallback",
    "StoreLike",
    "agreement",
    "compare",
    "evaluate",
    "export",
    "generate",
    "import_file",
    "judge",
    "ls",
    "rate",
    "report",
]

BuiltinJudgeProtocol = Literal["pairwise", "score", "hallucination"]
"""The built-in protocols `judge` runs; any registered protocol with a `run` is accepted too."""


@dataclass(frozen=True)
class GenerationResult:
    """What :func:`generate` built: the benchmark's name, its item count and the pipeline's
    report (self-check figures, answer letters, diversity, timings)."""

    benchmark: str
    items: int
    report: dict[str, Any] = field(repr=False)
    rounds: Generated | None = field(default=None, repr=False)
    """A generation in rounds (``budget``, ``budget_usd``, ``until``): what it built, spent
    and decided, the examinees' runs in ``rounds.summaries``; None for one built at once."""


EvaluationResult = EvaluateResult
"""What :func:`evaluate` did and found (the use case's result, as the command gets it)."""


_opened = opened_store

_run = run_sync
"""Run a coroutine to completion from sync code, also under a running loop (Jupyter)."""


def ls(store: StoreLike = None) -> list[ListedBenchmark]:
    """Every benchmark in the store: kind, item count, the models run on it, its judges."""
    with _opened(store) as opened:
        return list_stored(opened)


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
        concurrency=concurrency, budget=budget, budget_usd=budget_usd, until=until,
        models=tuple(model or ()), alpha=alpha, first_round=first_round,
    )  # fmt: skip
    planned = check_generate_options(options)
    with _opened(store) as opened:
        opened.require_writable()
        made = _run(generate_benchmark(opened, options, planned=planned))
    return GenerationResult(
        benchmark=made.benchmark,
        items=int(made.report["items"]),
        report=made.report,
        rounds=made.rounds,
    )


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
    and overall, with Wilson 95% intervals. A name with stored responses but no provider (an
    imported prediction file) is scored, not run.

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


def judge(
    benchmark: str,
    models: Sequence[str],
    judge: str,
    *,
    protocol: BuiltinJudgeProtocol | str = "pairwise",
    store: StoreLike = None,
    reference_free: bool = False,
    play_reference: bool = True,
    combine: str = "majority",
    regenerate_reference: bool = False,
    writer: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    workers: int = 1,
    config: GenerationConfig | GenerationSettings | None = None,
) -> JudgeRunSummary:
    """Judge the models' stored answers on an open-ended benchmark with the ``judge`` model,
    as ``lvlmbench judge PROTOCOL`` does (the same use case,
    :func:`lvlmbench.workflows.judge_benchmark`, and the same options and defaults):
    ``pairwise`` (VisIT-Bench: every pair in both orders, against the reference unless
    ``reference_free``), ``score`` (TouchStone, against the dataset's reference answers, or
    with ``regenerate_reference`` a caption-assisted one by ``writer``) or ``hallucination``
    (TouchStone), or any registered protocol that judges by itself. Models still missing
    answers are asked first. ``config``: the judge's generation settings, as the judge
    commands' flags (part of the judge's name, so its verdicts under other settings stay
    apart). A run that had nothing to judge raises
    :class:`~lvlmbench.workflows.NothingToJudge` (the command exits 1); units that failed are
    counted in the summary (``failed``) and asked again on the next run."""
    if isinstance(models, str):  # a bare spec would be read as one spec per letter
        raise InvalidOptions(f"models: expected a list of model specs, got {models!r}")
    options = JudgeOptions(
        models=tuple(models),
        judge=judge,
        protocol=protocol,
        reference_free=reference_free,
        play_reference=play_reference,
        combine=combine,
        regenerate_reference=regenerate_reference,
        writer=writer,
        concurrency=concurrency,
        workers=workers,
        settings=as_settings(config),
    )
    check_judge_options(options, resolve_spec)  # before the store is opened or created
    with _opened(store) as opened:
        opened.require_writable()
        found = judge_benchmark(
            opened, benchmark, options, resolve=resolve_spec, load=load_chat_model
        )
        return found.run


def rate(
    benchmark: str,
    judge: str | None = None,
    *,
    store: StoreLike = None,
    protocol: str | None = None,
    reference: str = REFERENCE,
    combine: str = "majority",
    rounds: int = RATING_ROUNDS,
    seed: int = RATING_SEED,
    style: bool = False,
) -> PairwiseReport:
    """Ratings (Bradley-Terry and Elo with bootstrap 95% intervals), win rates against the
    ``reference`` and judge diagnostics from the stored pairwise judgments of ``judge`` (default:
    the one judge with rows), or from people's votes (``human``, ``human:<annotator>``), as
    ``lvlmbench rate`` gives them (the same use case); with ``style``, also the
    style-controlled Bradley-Terry (``report.style``). Reads only; raises InvalidOptions (a
    ValueError) when there is nothing to rate."""
    options = RateOptions(
        judge=judge,
        protocol=protocol,
        reference=reference,
        rounds=rounds,
        seed=seed,
        combine=combine,
        style_control=style,
    )
    with _opened(store) as opened:
        return rate_benchmark(opened, benchmark, options)


def agreement(
    benchmark: str,
    judge: str,
    *,
    store: StoreLike = None,
    protocol: str | None = None,
    annotators: str | None = None,
    seed: int = 0,
) -> AgreementResult:
    """The agreement `lvlmbench agreement` prints (the same use case): ``judge`` (a judge spec
    with pairwise rows, ``metric/<name>``, or ``human`` for people with each other) against
    the votes of ``annotators`` (a group as the vote file names it, e.g. ``expert`` or
    ``author``, or ``all``; None: ``expert`` where there are expert votes, as FastChat's
    ``compute_agreement.py``, else ``all``). Reads only; InvalidOptions (a ValueError) for an
    unknown judge or group, or no voted pair the judge judged."""
    options = AgreementOptions(judge=judge, protocol=protocol, seed=seed, annotators=annotators)
    with _opened(store) as opened:
        return agreement_of(opened, benchmark, options)


def report(
    out: str | Path = "report.html",
    *,
    store: StoreLike = None,
    benchmarks: Sequence[str] | None = None,
    gallery: int = 24,
    baseline: str | None = None,
) -> ReportFiles:
    """Write the self-contained HTML report with summary.json and leaderboard.csv/.md beside
    it; returns their paths. As ``lvlmbench report`` (:class:`~lvlmbench.workflows.ReportOptions`):
    InvalidOptions, and nothing written, when there is nothing to report on."""
    with _opened(store) as opened:
        return make_report(opened, ReportOptions(Path(out), benchmarks, gallery, baseline))


def export(
    benchmark: str,
    out: str | Path,
    *,
    store: StoreLike = None,
    parquet: bool = True,
    license: str | None = None,
    format: str = "lvlmbench",
    model: str | None = None,
) -> ExportResult:
    """``lvlmbench export``: the benchmark as a Hugging Face dataset folder (parquet + dataset
    card + items.jsonl + images/; ``parquet=False``: items.jsonl + images/ only), or with
    ``format="vlmeval"`` ``model``'s answers as a VLMEvalKit prediction file. The same use
    case and defaults as the command (:func:`lvlmbench.workflows.export_benchmark`); refused
    options raise InvalidOptions before the store is opened."""
    options = ExportOptions(
        out=Path(out), parquet=parquet, license=license, format=format, model=model
    )
    check_export_options(options)
    with _opened(store) as opened:
        return export_benchmark(opened, benchmark, options)


def import_file(
    options: ImportOptions | str | Path, *, store: StoreLike = None, **fields: Any
) -> ImportResult:
    """``lvlmbench import``: a dataset, vote or prediction file into the store, with the
    command's options and defaults (:class:`lvlmbench.workflows.ImportOptions`; a path plus
    its fields as keywords, e.g. ``import_file("bench.tsv", format="vlmeval", name="mmb")``).
    Bad options raise :class:`lvlmbench.workflows.InvalidOptions` before the store is opened,
    a bad file :class:`lvlmbench.datasets.DatasetError`; nothing is written then."""
    if not isinstance(options, ImportOptions):
        options = ImportOptions(Path(options), **fields)
    elif fields:
        raise TypeError("give ImportOptions or a path with keywords, not both")
    fmt = import_format(options)
    with _opened(store) as opened:
        return _import_file(opened, options, fmt)
