"""The built-in judge protocols, registered in the order the report shows their sections:
VisIT-Bench pairwise (reference-backed, then reference-free), text metrics, TouchStone score,
TouchStone hallucination, and people's votes.

A new protocol is one module like the ones these wrap (messages, run, summary), its prompt
file, and a :func:`~lvlmbench.judging.protocol.register` call that its module makes on import
(imported from :mod:`lvlmbench.judging`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook
from lvlmbench.judging.hallucination import (
    HALLUCINATION,
    HALLUCINATION_SCALE,
    HallucinationScore,
    hallucination_report,
    run_hallucination,
)
from lvlmbench.judging.pairwise import PAIRWISE, PAIRWISE_REF
from lvlmbench.judging.pairwise_report import HUMAN
from lvlmbench.judging.protocol import Column, JudgeProtocol, register
from lvlmbench.judging.reference import REFERENCE
from lvlmbench.judging.scale import ParsedRating, ParsedScores
from lvlmbench.judging.score import SCORE, SCORE_SCALE, ModelScore, score_report
from lvlmbench.judging.verdict import ParsedVerdict, parse_verdict
from lvlmbench.models import ModelClient
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, Judgment

__all__ = ["METRIC", "PROTOCOLS"]

METRIC = "metric:"
"""Protocol family of the text metrics (``metric:<name>``, judge ``metric/<name>``)."""

_MODEL = Column("model", "model", None)
_PAIRWISE_COLUMNS = ("bt:", "win_rate:", "online_elo_", "combine:")


def _scores(rows: Iterable[Judgment], items: Mapping[str, BenchmarkItem]) -> dict[str, ModelScore]:
    """Scores against the dataset's own reference (the report pairs each other reference)."""
    return score_report(rows, REFERENCE, items)


def _ratings(
    rows: Iterable[Judgment], items: Mapping[str, BenchmarkItem]
) -> dict[str, HallucinationScore]:
    return hallucination_report(rows, set(items))


async def _run_hallucination(
    store: Store,
    benchmark: str,
    players: Sequence[str],
    client: ModelClient,
    hook: ProgressHook | None,
    *,
    only: Collection[str] | None = None,
    epochs: int = 1,
) -> JudgeRunSummary:
    return await run_hallucination(
        store, benchmark, players, client, on_progress=hook, only=only, epochs=epochs
    )


def _metric_value(row: Judgment) -> float | None:
    return ParsedRating.of(row).value


PROTOCOLS = (
    register(
        JudgeProtocol(
            PAIRWISE_REF,
            "pairwise",
            "pairwise (reference shown)",
            prompts=("judge/pairwise_system.md", "judge/pairwise_user_ref.md"),
            parse=parse_verdict,
            result=ParsedVerdict.of,
        )
    ),
    register(
        JudgeProtocol(
            PAIRWISE,
            "pairwise",
            "pairwise",
            prompts=("judge/pairwise_system.md", "judge/pairwise_user.md"),
            parse=parse_verdict,
            result=ParsedVerdict.of,
            columns=_PAIRWISE_COLUMNS,
            report_key="pairwise",
        )
    ),
    register(
        JudgeProtocol(
            METRIC,
            "metric",
            "text metric",
            result=_metric_value,
            digits=3,  # metrics live on 0-1 (or 0-10) scales: one decimal would hide them
            columns=(METRIC,),
            report_key="metrics",
            prefix=True,
        )
    ),
    register(
        JudgeProtocol(
            SCORE,
            "score",
            "TouchStone score",
            prompts=("judge/score_system.md", "judge/score_user.md"),
            scale=SCORE_SCALE,
            result=ParsedScores.of,
            summarise=_scores,
            columns=("touchstone:", "touchstone_rel:"),
            cli_columns=(
                _MODEL,
                Column("score", "score"),
                Column("reference", "reference"),
                Column("% of ref", "relative_pct"),
                Column("abilities", "abilities", expand=True),
                Column("n", "items", None),
                Column("covers", "covers", None),
                Column("unscored", "unscored", None),
            ),
            report_key="touchstone",
        )
    ),
    register(
        JudgeProtocol(
            HALLUCINATION,
            "rating",
            "hallucination",
            prompts=("judge/hallucination.md",),
            scale=HALLUCINATION_SCALE,
            result=ParsedRating.of,
            summarise=_ratings,
            digits=2,
            columns=("hallucination:",),
            run=_run_hallucination,
            help="Rate how much of each answer the caption does not support "
            f"({HALLUCINATION_SCALE}; TouchStone).",
            cli_columns=(
                _MODEL,
                Column("mean", "mean", 2),
                Column("rated", "rated", None),
                Column("unscored", "unscored", None),
            ),
            report_key="hallucination",
        )
    ),
    # People's votes: the report collects and draws them itself (ratings, style control and
    # every judge's agreement with them), and only for benchmarks that have votes.
    register(
        JudgeProtocol(HUMAN, "human", "human votes", result=ParsedVerdict.of, report_key=HUMAN)
    ),
)
"""The built-in protocols, registered on import."""
