"""Rank intervals of a leaderboard's models on a benchmark's choice items.

A leaderboard's order is uncertain too: two models a point apart on 100 items may swap places
on another draw of items. Each model's rank interval is the set of ranks it holds in 95 % of
cluster-bootstrap resamples (:func:`lvlmbench.stats.rank_intervals`), over the items every
ranked model answered (so a model is not ranked on easier items than another), resampling whole
clusters (an AutoBench-V fine aspect, a CircularEval group, an MME picture) with a fixed seed,
so the same store gives the same report. Models whose intervals overlap are tied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.choice.accuracy import ScoredAnswers
from lvlmbench.stats import RankInterval, cluster_key, rank_intervals

__all__ = ["RANK_RESAMPLES", "RANK_SEED", "AccuracyRanks", "accuracy_ranks"]

RANK_SEED = 0
"""The resampling seed: a report's rank intervals are the same on every run."""
RANK_RESAMPLES = 1000


@dataclass(frozen=True)
class AccuracyRanks:
    """Each ranked model's rank interval (best first) and what it was computed over."""

    ranks: tuple[RankInterval, ...]
    items: int
    """The items every ranked model answered: the common set the ranks are over."""
    clusters: int
    cluster: str
    """What a resampled cluster is ("fine aspect", "item", ...)."""

    def of(self, model: str) -> RankInterval | None:
        return next((r for r in self.ranks if r.model == model), None)


def accuracy_ranks(
    answers: ScoredAnswers,
    models: Sequence[str] | None = None,
    *,
    variant: str = "default",
    seed: int = RANK_SEED,
    resamples: int = RANK_RESAMPLES,
) -> AccuracyRanks | None:
    """Rank intervals of ``models`` (every model with scored items under ``variant`` when
    None) on the items they all answered; None when fewer than two models share at least two
    clusters of items (nothing to rank)."""
    scores = {
        model: per_item
        for (model, var), per_item in answers.item_scores(models).items()
        if var == variant and per_item
    }
    if len(scores) < 2:
        return None
    common = sorted(set.intersection(*(set(per_item) for per_item in scores.values())))
    keys = [cluster_key(answers.items[item_id]) for item_id in common]
    labels = [f"{k.kind}:{k.key}" for k in keys]
    if len(set(labels)) < 2:
        return None
    names = sorted(scores)
    matrix = [[scores[name][item_id].mean for item_id in common] for name in names]
    found = rank_intervals(names, matrix, labels, resamples=resamples, seed=seed)
    kinds = sorted({k.kind for k in keys})
    return AccuracyRanks(tuple(found), len(common), len(set(labels)), " + ".join(kinds))
