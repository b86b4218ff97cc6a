"""The leaderboard's rank intervals, put beside each model's overall accuracy row.

Each row gains ``rank`` (on the observed accuracies, 1 = best, ties share the better rank),
``rank_low``/``rank_high`` (the ranks the model holds in 95 % of cluster-bootstrap resamples
over the items every model answered: :func:`lvlmbench.choice.ranks.accuracy_ranks`, fixed
seed) and ``tied_with`` (the models whose rank intervals overlap its own). Rows stay as they
are where there is nothing to rank (one model, or fewer than two clusters in common).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from lvlmbench.choice.accuracy import ScoredAnswers
from lvlmbench.choice.ranks import accuracy_ranks

__all__ = ["with_ranks"]


def with_ranks(
    overall: list[dict[str, Any]], answers: ScoredAnswers, ranked: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The overall rows, each with its rank interval (see the module's note). ``ranked``: the
    models to rank (the rows of full coverage; default every row): a model that answered part
    of the benchmark would shrink the common item set the others are ranked on."""
    names = [r["model"] for r in overall if ranked is None or r["model"] in ranked]
    found = accuracy_ranks(answers, names)
    if found is None:
        return overall
    out = []
    for row in overall:
        rank = found.of(row["model"])
        if rank is None:
            out.append(row)
            continue
        out.append(
            {
                **row,
                "rank": rank.rank,
                "rank_low": rank.low,
                "rank_high": rank.high,
                "tied_with": list(rank.tied_with),
                "rank_items": found.items,
                "rank_clusters": found.clusters,
                "rank_cluster": found.cluster,
            }
        )
    return out
