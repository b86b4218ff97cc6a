"""Judging from Python: judge, rate, agreement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

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
from lvlmbench.types import GenerationConfig
from lvlmbench.workflows import (
    AgreementOptions,
    AgreementResult,
    InvalidOptions,
    JudgeOptions,
    RateOptions,
    StoreLike,
    check_judge_options,
    judge_benchmark,
    opened_store,
    run_sync,
)
from lvlmbench.workflows import agreement as agreement_of
from lvlmbench.workflows import rate as rate_benchmark

__all__ = ["BuiltinJudgeProtocol", "agreement", "judge", "rate"]

BuiltinJudgeProtocol = Literal["pairwise", "score", "hallucination"]
"""The built-in protocols `judge` runs; any registered protocol with a `run` is accepted too."""


_opened = opened_store

_run = run_sync
"""Run a coroutine to completion from sync code, also under a running loop (Jupyter)."""


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
    limit: int | None = None,
    limit_seed: int = 0,
    epochs: int = 1,
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
    apart). ``limit``: judge only the seeded stratified subset of that many items that
    ``evaluate(limit=..., limit_seed=...)`` asks (missing answers asked on it alone).
    ``epochs``: judge K answers per item and examinee (``evaluate(epochs=K)``'s samples,
    asked where missing), each epoch's apart; the results average an item's epochs. A run
    that had nothing to judge raises
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
        limit=limit,
        limit_seed=limit_seed,
        epochs=epochs,
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
