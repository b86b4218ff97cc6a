"""The human votes every pooled figure counts: all of them but those of the annotators the
owner excluded (`lvlmbench annotators exclude NAME`), for pairwise votes and alignment checks.
Excluded votes stay stored and count again once the annotator is included; every reader of
pooled votes (ratings, win rates, agreement, the vote counts) goes through
:func:`counted_votes`, so none of them can forget the exclusions.
"""

from __future__ import annotations

from collections.abc import Iterator

from lvlmbench.judging.protocol import HUMAN
from lvlmbench.store import Store, excluded_annotators, iter_judgments
from lvlmbench.types import Judgment

__all__ = ["annotator_of", "counted_votes"]


def annotator_of(judge: str) -> str:
    """The annotator of a human judge name (``human:alice`` → ``alice``)."""
    return judge.removeprefix(f"{HUMAN}:")


def counted_votes(store: Store, protocol: str = HUMAN) -> Iterator[Judgment]:
    """Every human vote (``protocol``: ``human``, or ``human-check`` for the alignment checks)
    whose annotator is not excluded, streamed."""
    left_out = excluded_annotators(store)
    for vote in iter_judgments(store, protocol=protocol):
        if annotator_of(vote.judge) not in left_out:
            yield vote
