"""Accuracy rows and how they add up: a row per (model, variant, group), the cell that sums a
row's answers and items while a table is read, the overall row pooling a model's groups, and
which groups it covers. :mod:`lvlmbench.choice.accuracy` reads the answers into them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lvlmbench.ratings import Coverage, coverage
from lvlmbench.stats import Estimate, ItemMean

__all__ = ["AccuracyRow", "RowCell", "RowKey", "accuracy_rows", "group_coverage", "overall_rows"]


@dataclass(frozen=True)
class AccuracyRow:
    """Accuracy of one model on one group of items: answer counts, and the item-level
    figure (``score``) its accuracy and interval come from."""

    model: str
    variant: str
    group: tuple[str, ...]
    correct: int
    """Right answers (each epoch's answer counts once)."""
    answered: int
    """ok + unparseable + truncated answers (the answers scored)."""
    unparseable: int
    failed: int
    """Calls that failed and are not counted."""
    llm_read: int = 0
    """Answers (within ``answered``) the rules left unparseable and an LLM extractor read
    (``evaluate --extract-with``): shown apart, never mixed silently with rule reads."""
    no_key: int = 0
    """Answers to items without a key (a TEST split): not scored."""
    truncated: int = 0
    """Answers (within ``answered``) cut by the token limit, read or not."""
    truncated_unread: int = 0
    """Truncated answers no answer could be read from (status truncated; counted wrong)."""
    score: ItemMean = field(default_factory=ItemMean)
    """The figure: each scored item's mean over its answers, n = items."""

    @property
    def items(self) -> int:
        """Distinct items scored (the n of the interval)."""
        return self.score.items

    @property
    def accuracy(self) -> float:
        """The mean over items of each item's share of right answers (0 when none)."""
        return self.score.mean

    @property
    def epochs(self) -> float:
        """Scored answers per item (1 for a single run)."""
        return self.score.epochs

    @property
    def estimate(self) -> Estimate:
        """The accuracy with its 95% interval over items, clustered where items share a source
        (:attr:`lvlmbench.stats.ItemMean.estimate`: method, cluster, n items, n clusters)."""
        return self.score.estimate

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the accuracy (see :attr:`estimate`)."""
        found = self.score.estimate
        return found.low, found.high


RowKey = tuple[str, str, tuple[str, ...]]
"""(model, variant, group) of an accuracy row."""


@dataclass
class RowCell:
    """What one accuracy row adds up: its answers' Tally and its items' scores (pooled once,
    at the end, so that adding an item costs no pass over the clusters so far)."""

    tally: list[int] = field(default_factory=lambda: [0] * 8)
    scores: list[ItemMean] = field(default_factory=list)

    def add(self, tally: Sequence[int], score: ItemMean | None) -> None:
        for i, value in enumerate(tally):
            self.tally[i] += value
        if score is not None:
            self.scores.append(score)

    @property
    def score(self) -> ItemMean:
        return ItemMean.pooled(self.scores)


def accuracy_rows(cells: dict[RowKey, RowCell]) -> list[AccuracyRow]:
    return [
        AccuracyRow(
            model,
            var,
            key,
            correct=cell.tally[0],
            answered=cell.tally[1],
            unparseable=cell.tally[2],
            failed=cell.tally[3],
            llm_read=cell.tally[4],
            no_key=cell.tally[5],
            truncated=cell.tally[6],
            truncated_unread=cell.tally[7],
            score=cell.score,
        )
        for (model, var, key), cell in sorted(cells.items())
    ]


def overall_rows(rows: Iterable[AccuracyRow]) -> list[AccuracyRow]:
    """One row per (model, variant) pooling all its groups (``group == ()``): the overall
    accuracy over every scored item, with its own interval over items (not a mean of groups,
    which would weigh a small group like a large one). The groups must not share items (the
    groups of one table never do)."""
    pooled: dict[RowKey, RowCell] = {}
    for row in rows:
        tally = (
            row.correct,
            row.answered,
            row.unparseable,
            row.failed,
            row.llm_read,
            row.no_key,
            row.truncated,
            row.truncated_unread,
        )
        pooled.setdefault((row.model, row.variant, ()), RowCell()).add(tally, row.score)
    return accuracy_rows(pooled)


def group_coverage(
    rows: Iterable[AccuracyRow], expected: Iterable[tuple[str, ...]], noun: str = "groups"
) -> dict[tuple[str, str], Coverage]:
    """Per (model, variant), which of the ``expected`` groups (:meth:`ScoredAnswers.groups`)
    its rows score: an overall accuracy pooled over its groups covers only those, and says so
    when they are not all (:mod:`lvlmbench.ratings.categories`)."""
    names = [" / ".join(g) for g in expected]
    scored: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        found = scored.setdefault((row.model, row.variant), [])
        if row.items:
            found.append(" / ".join(row.group))
    return {key: coverage(found, names, noun) for key, found in scored.items()}
