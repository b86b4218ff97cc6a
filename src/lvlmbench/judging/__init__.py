"""Judging examinee answers: the VisIT-Bench pairwise judge, the TouchStone
score and hallucination judges, caption-assisted references, and summaries of their verdicts."""

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook
from lvlmbench.judging.annotators import (
    ALL_ANNOTATORS,
    Annotators,
    annotator_group,
    choose_annotators,
)
from lvlmbench.judging.builtin_protocols import METRIC
from lvlmbench.judging.hallucination import (
    HALLUCINATION,
    HallucinationScore,
    hallucination_judgment,
    hallucination_messages,
    hallucination_report,
    run_hallucination,
)
from lvlmbench.judging.human_ratings import (
    VoteAgreement,
    annotator_agreement,
    human_report,
    vote_agreement,
)
from lvlmbench.judging.pairwise import (
    FAMILIES,
    PAIRWISE,
    PAIRWISE_REF,
    combine_orders,
    model_family,
    pairwise_judgment,
    pairwise_messages,
    run_pairwise,
    self_preference_warnings,
)
from lvlmbench.judging.protocol import (
    Column,
    JudgeProtocol,
    ModelSummary,
    RunProtocol,
    column_digits,
    is_human_judge,
    metric_name,
    pairwise_protocols,
    protocol_for,
    protocols,
    register,
    table_columns,
    unregister,
)
from lvlmbench.judging.reference import (
    REFERENCE,
    REFERENCE_PREFIX,
    answer_texts,
    make_references,
    missing_answers,
    reference_messages,
    reference_name,
)
from lvlmbench.judging.scale import (
    ParsedRating,
    ParsedScores,
    RatingScale,
    parse_rating,
    parse_scores,
)
from lvlmbench.judging.score import (
    SCORE,
    ModelScore,
    ScoreGroup,
    item_abilities,
    run_score,
    score_judgment,
    score_messages,
    score_report,
)
from lvlmbench.judging.summaries import (
    HUMAN,
    RATING_ROUNDS,
    RATING_SEED,
    HumanAgreement,
    PairRecord,
    PairwiseReport,
    human_agreement,
    judges_for,
    pair_records,
    pairwise_report,
)
from lvlmbench.judging.verdict import ParsedVerdict, parse_verdict
from lvlmbench.judging.vote_summary import JudgeAgreement, VoteSummary, vote_summary

__all__ = [
    "ALL_ANNOTATORS",
    "FAMILIES",
    "HALLUCINATION",
    "HUMAN",
    "METRIC",
    "PAIRWISE",
    "PAIRWISE_REF",
    "RATING_ROUNDS",
    "RATING_SEED",
    "REFERENCE",
    "REFERENCE_PREFIX",
    "SCORE",
    "Annotators",
    "Column",
    "HallucinationScore",
    "HumanAgreement",
    "JudgeAgreement",
    "JudgeProtocol",
    "JudgeRunSummary",
    "ModelScore",
    "ModelSummary",
    "PairRecord",
    "PairwiseReport",
    "ParsedRating",
    "ParsedScores",
    "ParsedVerdict",
    "ProgressHook",
    "RatingScale",
    "RunProtocol",
    "ScoreGroup",
    "VoteAgreement",
    "VoteSummary",
    "annotator_agreement",
    "annotator_group",
    "answer_texts",
    "choose_annotators",
    "column_digits",
    "combine_orders",
    "hallucination_judgment",
    "hallucination_messages",
    "hallucination_report",
    "human_agreement",
    "human_report",
    "is_human_judge",
    "item_abilities",
    "judges_for",
    "make_references",
    "metric_name",
    "missing_answers",
    "model_family",
    "pair_records",
    "pairwise_judgment",
    "pairwise_messages",
    "pairwise_protocols",
    "pairwise_report",
    "parse_rating",
    "parse_scores",
    "parse_verdict",
    "protocol_for",
    "protocols",
    "reference_messages",
    "reference_name",
    "register",
    "run_hallucination",
    "run_pairwise",
    "run_score",
    "score_judgment",
    "score_messages",
    "score_report",
    "self_preference_warnings",
    "table_columns",
    "unregister",
    "vote_agreement",
    "vote_summary",
]

# The built-in protocols register themselves on import (the registry the CLI, report and web
# app loop over).
from lvlmbench.judging import builtin_protocols as _builtin_protocols  # noqa: F401

# Text metrics as judges (BLEU-4, ROUGE-L, METEOR, CIDEr, BERTScore, random, length).
from lvlmbench.judging.metrics import (
    DEFAULT_METRICS,
    METRICS,
    MetricRating,
    MetricRunSummary,
    MetricScore,
    MetricUnavailable,
    available_metrics,
    judge_with_metrics,
    load_metric,
    summarise_metrics,
)

__all__ += [
    "DEFAULT_METRICS",
    "METRICS",
    "MetricRating",
    "MetricRunSummary",
    "MetricScore",
    "MetricUnavailable",
    "available_metrics",
    "judge_with_metrics",
    "load_metric",
    "summarise_metrics",
]
