"""Bradley-Terry rating differences for ``lvlmbench compare --metric bradley-terry``.

A rating difference is no mean over items, so its interval is a paired cluster bootstrap with a
statistic callback (:func:`lvlmbench.stats.paired_bootstrap`): each resample draws whole items
(every match on a drawn item comes with it) and refits Bradley-Terry on all players. The fit is
`lvlmbench rate`'s: unregularised, unless rate's own bootstrap finds the win graph too sparse
and fits with ``l2 = 1.0``; the same choice holds for every resample here, so the point
estimate is the difference of the ratings `lvlmbench rate` prints.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np
import numpy.typing as npt

from lvlmbench.judging import RATING_ROUNDS, RATING_SEED
from lvlmbench.ratings import bradley_terry, bradley_terry_bootstrap
from lvlmbench.stats import PairedComparison, paired_bootstrap

__all__ = ["rating_difference"]

IntArray = npt.NDArray[np.intp]
Outcome = tuple[str, str, float]
"""(first player, second player, the first player's outcome)."""
SPARSE_L2 = 1.0
"""The regularisation `lvlmbench rate` falls back to on a sparse win graph."""


def _rate_l2(matches: Sequence[Outcome]) -> float:
    """The l2 `lvlmbench rate` would fit these matches with (0, or SPARSE_L2)."""
    try:
        bradley_terry_bootstrap(matches, rounds=RATING_ROUNDS, seed=RATING_SEED)
    except ValueError:
        return SPARSE_L2
    return 0.0


def _fit(matches: Sequence[Outcome], l2: float) -> dict[str, float]:
    try:
        return bradley_terry(matches, l2=l2)
    except ValueError:  # a resample whose win graph is not connected
        return bradley_terry(matches, l2=SPARSE_L2)


def _difference(
    matches: Sequence[Outcome], a: str, b: str, l2: float, point: float
) -> Callable[[IntArray], float]:
    def statistic(indices: IntArray) -> float:
        ratings = _fit([matches[i] for i in indices], l2)
        if a not in ratings or b not in ratings:
            # A resample that drew none of A's (or B's) matches has no rating for it: it keeps
            # the full fit's difference rather than make every quantile NaN.
            return point
        return ratings[a] - ratings[b]

    return statistic


def rating_difference(
    matches: Sequence[Outcome],
    clusters: Sequence[Hashable],
    pair: tuple[str, str],
    *,
    cluster: str,
    resamples: int,
    seed: int,
) -> tuple[PairedComparison, dict[str, float]]:
    """A's rating minus B's with its paired cluster-bootstrap interval and p-value, and every
    player's rating on all ``matches`` (``clusters``: each match's cluster, aligned).
    NotEnoughClusters when the matches come from a single cluster."""
    a, b = pair
    l2 = _rate_l2(matches)
    ratings = _fit(matches, l2)
    point = ratings[a] - ratings[b]
    paired = paired_bootstrap(
        _difference(matches, a, b, l2, point),
        list(clusters),
        len(matches),
        cluster=cluster,
        resamples=resamples,
        seed=seed,
    )
    return paired, ratings
