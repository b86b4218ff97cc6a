"""Text metrics as judges: each response scored against its item's reference.

BLEU-4, ROUGE-L, METEOR, CIDEr-D and BERTScore (VisIT-Bench's metric baselines), plus the
``random`` floor and the ``length`` probe. :func:`load_metric` imports a metric only when it is
asked for; a missing extra raises :class:`MetricUnavailable` with the install command.
:func:`judge_with_metrics` stores one ``metric:<name>`` judgment per response (resumable) and
:func:`summarise_metrics` turns them into per-model means and ratings.
"""

from lvlmbench.judging.metrics._base import (
    DEFAULT_METRICS,
    METRICS,
    Metric,
    MetricInfo,
    MetricUnavailable,
    available_metrics,
    load_metric,
    register_metric,
    tokens,
)
from lvlmbench.judging.metrics.run import (
    MetricRating,
    MetricRatingJSON,
    MetricRunSummary,
    MetricScore,
    MetricScoreJSON,
    judge_name,
    judge_with_metrics,
    metric_matches,
    summarise_metrics,
)

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "Metric",
    "MetricInfo",
    "MetricRating",
    "MetricRatingJSON",
    "MetricRunSummary",
    "MetricScore",
    "MetricScoreJSON",
    "MetricUnavailable",
    "available_metrics",
    "judge_name",
    "judge_with_metrics",
    "load_metric",
    "metric_matches",
    "register_metric",
    "summarise_metrics",
    "tokens",
]
