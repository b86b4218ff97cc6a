"""The Python API for notebooks and scripts: generate, evaluate, judge, rate, report, ls.

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

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from lvlmbench.autobench.pipeline import LEVELS
from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table, overall_rows
from lvlmbench.judging import (
    HUMAN,
    METRIC,
    RATING_ROUNDS,
    RATING_SEED,
    REFERENCE,
    Annotators,
    HumanAgreement,
    JudgeRunSummary,
    PairwiseReport,
    VoteAgreement,
    annotator_agreement,
    choose_annotators,
    human_agreement,
    is_human_judge,
    judges_for,
    pairwise_protocols,
    pairwise_report,
    protocol_for,
    protocols,
    run_pairwise,
    run_score,
    vote_agreement,
)
from lvlmbench.models import (
    DEFAULT_CONCURRENCY,
    GenerationSettings,
    ModelClient,
    RegistryError,
    as_settings,
    load_chat_model,
    model_identity,
    parse_spec,
    resolve_spec,
    specs_with_settings,
)
from lvlmbench.ratings import COMBINE_RULES
from lvlmbench.report import ReportFiles, write_report
from lvlmbench.runner import VARIANTS, EvalSummary, run_examinees
from lvlmbench.store import (
    Store,
    StoredBenchmark,
    discard_if_empty,
    iter_benchmark_responses,
    list_stored,
    require_benchmark,
    sqlite_store_path,
)
from lvlmbench.types import GenerationConfig
from lvlmbench.workflows import Generated, GenerateOptions, check_generate_options
from lvlmbench.workflows import generate as generate_benchmark

__all__ = [
    "AgreementResult",
    "EvaluationResult",
    "GenerationResult",
    "StoreLike",
    "agreement",
    "evaluate",
    "generate",
    "judge",
    "ls",
    "rate",
    "report",
]

StoreLike = Store | str | Path | None
T = TypeVar("T")
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


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` did and found."""

    benchmark: str
    runs: list[EvalSummary]
    """One per examinee run (models scored from the store only have none)."""
    accuracy: list[AccuracyRow]
    """Per (model, variant, group of ``by``), Wilson 95% intervals in ``row.interval``."""
    overall: list[AccuracyRow]
    """Per (model, variant): every group pooled."""

    def overall_accuracy(self) -> dict[str, float]:
        """model identity -> overall accuracy (default variant rows)."""
        return {row.model: row.accuracy for row in self.overall if row.variant == "default"}


@contextlib.contextmanager
def _opened(store: StoreLike) -> Iterator[Store]:
    """The store to work on: a Store as given (left open), else opened here and closed after."""
    if isinstance(store, Store):
        yield store
        return
    url = None if store is None else str(store)
    path = sqlite_store_path(url)
    created = path is not None and not path.exists()
    opened = Store.open(url)
    try:
        yield opened
    finally:
        if created and path is not None:
            discard_if_empty(opened, path)  # a call that failed leaves no empty store
        else:
            opened.close()


def _run(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, also under a running loop (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()


def ls(store: StoreLike = None) -> list[StoredBenchmark]:
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


def _stored_only(store: Store, benchmark: str, specs: Sequence[str]) -> set[str]:
    """Names that are no runnable spec but have responses on ``benchmark`` (imported
    prediction files): scored, never run. Any other unparseable spec raises RegistryError."""
    found = set()
    for spec in specs:
        try:
            parse_spec(spec)
        except RegistryError:
            if next(iter_benchmark_responses(store, benchmark, model=spec), None) is None:
                raise
            found.add(spec)
    return found


def evaluate(
    benchmark: str,
    models: Sequence[str],
    *,
    store: StoreLike = None,
    by: Sequence[str] = ("difficulty",),
    variant: str = "default",
    concurrency: int | None = None,
    config: GenerationConfig | GenerationSettings | None = None,
) -> EvaluationResult:
    """Ask every model every item of ``benchmark`` it has not answered yet, then score them
    all: accuracy per group of ``by`` and overall, with Wilson 95% intervals. A name with
    stored responses but no provider (an imported prediction file) is scored, not run.

    ``config``: generation settings for every model run, as ``lvlmbench evaluate``'s flags
    (``GenerationConfig(temperature=0.5)`` is ``--temperature 0.5``; a field not given keeps
    the command's default, e.g. a reply budget of EXAMINEE_MAX_TOKENS). They become part of
    each model's name in the store, as the flags do, so answers under other settings are never
    reused for each other; the result's rows are under those names.

    ``concurrency`` None: 16 calls in flight, or what a local model asks for."""
    settings = as_settings(config)
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: choose from {', '.join(VARIANTS)}")
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    with _opened(store) as opened:
        require_benchmark(opened, benchmark)
        specs = specs_with_settings(models, settings)
        stored = _stored_only(opened, benchmark, specs)
        to_run = [spec for spec in specs if spec not in stored]
        for spec in to_run:
            resolve_spec(spec)  # every spec checked before the first call
        if to_run:
            opened.require_writable()
        runs = _run(
            run_examinees(opened, benchmark, to_run, variant=variant, concurrency=concurrency)
        )
        identities = [model_identity(spec) for spec in specs]
        rows = accuracy_table(opened, benchmark, list(by), variant=variant, models=identities)
    return EvaluationResult(benchmark, runs, rows, overall_rows(rows))


def judge(
    benchmark: str,
    models: Sequence[str],
    judge: str,
    *,
    protocol: BuiltinJudgeProtocol | str = "pairwise",
    store: StoreLike = None,
    reference_free: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    config: GenerationConfig | GenerationSettings | None = None,
) -> JudgeRunSummary:
    """Judge the models' stored answers on an open-ended benchmark with the ``judge`` model:
    ``pairwise`` (VisIT-Bench: every pair in both orders, against the reference unless
    ``reference_free``), ``score`` (TouchStone, against the dataset's reference answers) or
    ``hallucination`` (TouchStone), or any registered protocol that judges by itself
    (:attr:`lvlmbench.judging.JudgeProtocol.run`). Models still missing answers are asked
    first (with the command line's defaults). ``config``: the judge's generation settings, as
    the judge commands' flags (part of the judge's name, so its verdicts under other settings
    stay apart; a field not given keeps the protocol's own default)."""
    judge = specs_with_settings([judge], as_settings(config))[0]
    runnable = ["pairwise", "score", *(p.name for p in protocols() if p.run is not None)]
    if protocol not in runnable:
        choices = ", ".join(runnable[:-1]) + f" or {runnable[-1]}"
        raise ValueError(f"protocol {protocol!r}: choose {choices}")
    run_protocol = None if protocol in ("pairwise", "score") else protocol_for(protocol).run
    resolve_spec(judge)
    with _opened(store) as opened:
        require_benchmark(opened, benchmark)
        opened.require_writable()
        stored = _stored_only(opened, benchmark, models)
        to_run = [spec for spec in models if spec not in stored]
        players = [model_identity(spec) for spec in models]

        async def work() -> JudgeRunSummary:
            await run_examinees(opened, benchmark, to_run, concurrency=concurrency)
            client = ModelClient(load_chat_model(judge), opened, concurrency=concurrency)
            try:
                await client.check()
                if protocol == "score":
                    return await run_score(opened, benchmark, players, client, reference=REFERENCE)
                if run_protocol is not None:
                    return await run_protocol(opened, benchmark, players, client, None)
                return await run_pairwise(
                    opened,
                    benchmark,
                    players,
                    client,
                    reference_backed=not reference_free,
                    include_reference=reference_free,
                )
            finally:
                await client.aclose()

        return _run(work())


def rate(
    benchmark: str,
    judge: str | None = None,
    *,
    store: StoreLike = None,
    protocol: str | None = None,
    combine: str = "majority",
    rounds: int = RATING_ROUNDS,
    seed: int = RATING_SEED,
    style: bool = False,
) -> PairwiseReport:
    """Ratings (Bradley-Terry and Elo with bootstrap 95% intervals), win rates against the
    reference and judge diagnostics from the stored pairwise judgments of ``judge`` (default:
    the one judge with rows); with ``style``, also the style-controlled Bradley-Terry
    (``report.style``). Reads only; raises ValueError when there is nothing to rate."""
    rule = next((r for r in COMBINE_RULES if r == combine), None)
    if rule is None:
        raise ValueError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {combine!r}")
    with _opened(store) as opened:
        require_benchmark(opened, benchmark)
        wanted = None if judge is None else model_identity(judge)
        for candidate in [protocol] if protocol else pairwise_protocols():
            judges = [j for j in judges_for(opened, candidate) if not is_human_judge(j)]
            if wanted is None:  # without a judge named, only an unambiguous one
                chosen = judges[0] if len(judges) == 1 else None
            else:
                chosen = wanted if wanted in judges else None
            if chosen is None:
                continue
            found = pairwise_report(
                opened,
                benchmark,
                chosen,
                protocol=candidate,
                combine=rule,
                rounds=rounds,
                seed=seed,
                style=style,
            )
            if found.pairs:
                return found
    who = f"judge {judge!r}" if judge else "a single judge"
    raise ValueError(f"no pairwise judgments by {who} on benchmark {benchmark!r} to rate")


@dataclass(frozen=True)
class AgreementResult:
    """What :func:`agreement` found: the judge against the people's votes, over the votes of
    ``annotators`` (which group, and what it left out)."""

    judge: str
    protocol: str | None
    """The judge's protocol (None for ``human``: people with each other)."""
    annotators: Annotators
    votes: VoteAgreement
    """Against each single vote, with and without ties (FastChat's rule); for ``human``,
    every two votes on a pair."""
    majority: HumanAgreement | None
    """Against the majority of the votes per pair, by level (None for ``human``)."""


def agreement(
    benchmark: str,
    judge: str,
    *,
    store: StoreLike = None,
    protocol: str | None = None,
    annotators: str | None = None,
    seed: int = 0,
) -> AgreementResult:
    """The agreement `lvlmbench agreement` prints: ``judge`` (a judge spec with pairwise rows,
    ``metric/<name>``, or ``human`` for people with each other) against the votes of
    ``annotators`` (a group as the vote file names it, e.g. ``expert`` or ``author``, or
    ``all``; None: ``expert`` where there are expert votes, as FastChat's
    ``compute_agreement.py``, else ``all``). Reads only; ValueError for an unknown judge or
    group."""
    with _opened(store) as opened:
        require_benchmark(opened, benchmark)
        chosen = choose_annotators(opened, benchmark, annotators)
        if judge == HUMAN:
            people = annotator_agreement(opened, benchmark, annotators=chosen.group)
            return AgreementResult(HUMAN, None, chosen, people, None)
        wanted = model_identity(judge)
        candidates = [protocol] if protocol else pairwise_protocols()
        if protocol is None and judge.startswith("metric/"):
            candidates = [METRIC + judge.removeprefix("metric/").partition("@")[0]]
        found = next((p for p in candidates if wanted in judges_for(opened, p)), None)
        if found is None:
            raise ValueError(f"judge {judge!r} has no rows under {', '.join(candidates)}")
        majority = human_agreement(
            opened, benchmark, wanted, protocol=found, seed=seed, annotators=chosen.group
        )
        votes = vote_agreement(opened, benchmark, wanted, protocol=found, annotators=chosen.group)
        return AgreementResult(wanted, found, chosen, votes, majority)


def report(
    out: str | Path = "report.html",
    *,
    store: StoreLike = None,
    benchmarks: Sequence[str] | None = None,
    gallery: int = 24,
) -> ReportFiles:
    """Write the self-contained HTML report with summary.json and leaderboard.csv/.md beside
    it; returns their paths."""
    with _opened(store) as opened:
        for name in benchmarks or []:
            require_benchmark(opened, name)
        return write_report(opened, Path(out), benchmarks, gallery_size=gallery)
