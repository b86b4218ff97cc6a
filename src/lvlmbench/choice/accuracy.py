"""Accuracy of examinees on choice items, per model × capability × aspect × difficulty.

Counting rule: an answer that could not be read (unparseable) counts as wrong, because the
examinee did answer and the answer is not the key; a call that failed (error) is skipped and
counted separately, because a server fault says nothing about the model. A refusal ("I can't
help with that", a content filter) is the model's answer too: it counts as answered and wrong.
Answers compare to the key as :func:`lvlmbench.judging.score_choice` does (case and
surrounding spaces ignored), so an imported item keyed "True" scores a "true" reply right.
An item without a key (a VLMEvalKit TEST split) is not scored: its responses are counted in
``no_key`` instead, so the table says how many answers await the benchmark's own server.
A reply cut by the token limit (``truncated``) counts like any answer: right when its letter
could still be read and is the key, wrong when none could be (status ``truncated``, shown
apart from unparseable); ``truncated`` says how many were cut either way.
With ``evaluate --epochs K`` the item, not the sample, is the unit: each item's scored answers
average to its score, the accuracy is the mean of those over items and its interval has n =
items (:class:`lvlmbench.stats.ItemMean`, the one rule every accuracy follows); the counts
(``correct``, ``answered``, ...) stay counts of answers, and ``epochs`` says how many per item.
Items that share a source (:func:`lvlmbench.stats.cluster_key`: an AutoBench-V fine aspect, a
CircularEval group, an MME picture) are kept with their cluster, and the interval is clustered
by it (``row.estimate`` names the method, the cluster, n items and n clusters).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from lvlmbench.choice._facets import (
    GROUPINGS,
    available_facets,
    carries_facet,
    facet_name,
    facet_value,
    item_facets,
)
from lvlmbench.choice._rows import (
    AccuracyRow,
    RowCell,
    RowKey,
    accuracy_rows,
    group_coverage,
    overall_rows,
)
from lvlmbench.stats import ItemMean, cluster_key
from lvlmbench.store import AnswerFields, Store, iter_answer_fields, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = [
    "GROUPINGS",
    "AccuracyRow",
    "ScoredAnswers",
    "accuracy_table",
    "available_facets",
    "carries_facet",
    "facet_name",
    "facet_value",
    "group_coverage",
    "item_facets",
    "overall_rows",
    "response_correct",
    "scored_answers",
]


_OK, _UNPARSEABLE = Status.OK.value, Status.UNPARSEABLE.value
_ERROR, _TRUNCATED = Status.ERROR.value, Status.TRUNCATED.value
_FAILED = (0, 0, 0, 1, 0, 0, 0, 0)
_NO_KEY = (0, 0, 0, 0, 0, 1, 0, 0)

Tally = tuple[int, int, int, int, int, int, int, int]
"""What answers add to their row, in AccuracyRow's order: correct, answered, unparseable,
failed, read by an LLM, no key, truncated, truncated and unread."""

# An answer as scoring sees it: model, variant, the item's GROUPINGS facets, and
# (status, has a key, is right, read by an LLM, truncated, its shared cluster or None). Few
# distinct values per benchmark (a shared cluster multiplies them by the clusters only).
_Outcome = tuple[str, str, tuple[str, ...], tuple[str, bool, bool, bool, bool, str | None]]


def _shared_cluster(item: BenchmarkItem) -> str | None:
    """The item's cluster key when it shares one with other items (None: it stands alone)."""
    found = cluster_key(item)
    return None if found.kind == "item" else f"{found.kind}:{found.key}"


def _tally(
    status: str, has_key: bool, right: bool, llm: bool, truncated: bool, _cluster: str | None
) -> Tally:
    if status == _ERROR:
        return _FAILED
    if not has_key:
        return _NO_KEY
    ok = status == _OK
    return (
        int(ok and right),
        1,
        int(status == _UNPARSEABLE),
        0,
        int(ok and llm),
        0,
        int(truncated),
        int(status == _TRUNCATED),
    )


class ScoredAnswers:
    """Every answer to a benchmark's scored items, read and scored once, so several accuracy
    tables (overall, per level, per capability...) cost one pass over the responses instead of
    one each. With one answer per item the answers are counted per distinct outcome and facet
    combination (a few hundred counts for 100k answers) and a table adds those up; with several
    (``--epochs``) each item's answers are added up first, so that every item scores the mean
    of its answers and counts once. The items are parsed only when a table needs them."""

    def __init__(
        self,
        answers: Iterable[AnswerFields],
        load_items: Callable[[], Iterable[BenchmarkItem]],
        item_ids: Collection[str] | None = None,
    ) -> None:
        self._load_items = load_items
        self._item_ids = item_ids
        self._answers = list(answers)

    @functools.cached_property
    def items(self) -> dict[str, BenchmarkItem]:
        """The scored items (choice items, within ``item_ids`` when given) by id."""
        wanted = self._item_ids
        return {
            item.id: item
            for item in self._load_items()
            if item.kind != "open" and (wanted is None or item.id in wanted)
        }

    def _outcomes(self) -> Iterator[tuple[_Outcome, AnswerFields]]:
        keys = {
            item_id: (
                tuple(item_facets(item)[g] for g in GROUPINGS),
                _normal(item.answer),
                _shared_cluster(item),
            )
            for item_id, item in self.items.items()
        }
        said: dict[str, str | None] = {}  # a few distinct replies ("A", "b "...), each once
        for a in self._answers:
            found = keys.get(a.item_id)
            if found is None:
                continue
            facets, key, cluster = found
            reply = a.extracted
            if reply is not None and reply not in said:
                said[reply] = _normal(reply)
            right = key is not None and reply is not None and said[reply] == key
            flags = (
                a.status,
                key is not None,
                right,
                a.extracted_by is not None,
                bool(a.truncated),
                cluster,
            )
            yield (a.model, a.variant, facets, flags), a

    @functools.cached_property
    def _sampled(self) -> bool:
        """Whether some item was answered more than once (``--epochs``)."""
        return any(a.epoch for a in self._answers)

    @functools.cached_property
    def _by_outcome(self) -> Counter[_Outcome]:
        """Answers per distinct outcome: enough for a table when each item has one answer."""
        return Counter(outcome for outcome, _ in self._outcomes())

    @functools.cached_property
    def _by_item(self) -> dict[tuple[str, str, str], list[int]]:
        """Each (model, variant, item)'s answers added up (a Tally): what a table needs when
        items have several answers, or when it groups by metadata beyond GROUPINGS."""
        tallies: dict[tuple[str, str, str], list[int]] = {}
        for (model, var, _facets, flags), answer in self._outcomes():
            total = tallies.setdefault((model, var, answer.item_id), [0] * 8)
            for i, value in enumerate(_tally(*flags)):
                total[i] += value
        return tallies

    @functools.cached_property
    def _clusters(self) -> dict[str, str | None]:
        """Each scored item's shared cluster key (None: it stands alone)."""
        return {item_id: _shared_cluster(item) for item_id, item in self.items.items()}

    def _item_score(self, item_id: str, total: Sequence[int]) -> ItemMean:
        return ItemMean.of_item(total[0], total[1], self._clusters[item_id])

    def item_scores(
        self, models: Iterable[str] | None = None
    ) -> dict[tuple[str, str], dict[str, ItemMean]]:
        """Per (model, variant), each scored item's :class:`ItemMean` (its answers' mean), by
        item id: what paired tests and bootstraps over items start from."""
        wanted = set(models) if models is not None else None
        out: dict[tuple[str, str], dict[str, ItemMean]] = {}
        for (model, var, item_id), total in self._by_item.items():
            if total[1] and (wanted is None or model in wanted):
                out.setdefault((model, var), {})[item_id] = self._item_score(item_id, total)
        return out

    def table(
        self, by: Sequence[str] = (), models: Iterable[str] | None = None
    ) -> list[AccuracyRow]:
        """Accuracy rows for every (model, variant, group); see :func:`accuracy_table`."""
        if not self._answers and all(b in GROUPINGS for b in by):
            return []  # nothing answered (a variant never run): the items need not be read
        wanted = set(models) if models is not None else None
        cells: dict[RowKey, RowCell] = {}
        if self._sampled or any(b not in GROUPINGS for b in by):
            group = self._groups_of(by)
            for (model, var, item_id), total in self._by_item.items():
                if wanted is None or model in wanted:
                    cell = cells.setdefault((model, var, group[item_id]), RowCell())
                    cell.add(total, self._item_score(item_id, total) if total[1] else None)
            return accuracy_rows(cells)
        # One answer per item: every outcome's count is a count of items, so the few hundred
        # distinct outcomes make the table without a pass per item.
        at = [GROUPINGS.index(b) for b in by]
        for (model, var, facets, flags), n in self._by_outcome.items():
            if wanted is None or model in wanted:
                tally = [n * value for value in _tally(*flags)]
                scored = ItemMean.answered_once(tally[0], n, flags[5]) if tally[1] else None
                cells.setdefault((model, var, tuple(facets[i] for i in at)), RowCell()).add(
                    tally, scored
                )
        return accuracy_rows(cells)

    def _groups_of(self, by: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each scored item's group under ``by``; ValueError naming the facets there are when
        ``by`` names one the items do not have."""
        if any(b not in GROUPINGS for b in by):
            known = available_facets(self.items.values())
            unknown = [b for b in by if b not in GROUPINGS and facet_name(b) not in known]
            if unknown:
                raise ValueError(f"cannot group by {unknown}; choose from {', '.join(known)}")
        return {key: tuple(facet_value(item, b) for b in by) for key, item in self.items.items()}

    def groups(self, by: Sequence[str]) -> list[tuple[str, ...]]:
        """The groups under ``by`` of the keyed items, sorted: the whole set an overall
        accuracy over ``by``'s groups is measured against (see :func:`group_coverage`)."""
        group = self._groups_of(by)
        return sorted({group[i] for i, item in self.items.items() if item.answer is not None})


def _normal(answer: str | None) -> str | None:
    """An answer or key as compared (case and surrounding spaces ignored)."""
    return None if answer is None else answer.strip().lower()


def scored_answers(
    store: Store,
    benchmark: str | Sequence[str],
    *,
    variant: str | None = "default",
    item_ids: Collection[str] | None = None,
    items: Iterable[BenchmarkItem] | None = None,
) -> ScoredAnswers:
    """The answers to ``benchmark`` (one name, or several pooled together) under ``variant``
    (any when None), ready for :meth:`ScoredAnswers.table`; ``items`` are the benchmark's
    items when the caller has them parsed already."""
    names = [benchmark] if isinstance(benchmark, str) else list(benchmark)
    answers = (a for name in names for a in iter_answer_fields(store, name, variant))

    def load_items() -> Iterable[BenchmarkItem]:
        if items is not None:
            return items
        return (item for name in names for item in iter_items(store, name))

    return ScoredAnswers(answers, load_items, item_ids)


def response_correct(item: BenchmarkItem, response: Response) -> bool | None:
    """Whether a response counts as right under this module's counting rule; None when it is
    not scored (a failed call, or an item without a key)."""
    if response.status is Status.ERROR or item.answer is None:
        return None
    # The rule ScoredAnswers tallies by: right only when read from an ok reply and equal to
    # the key, case and surrounding spaces ignored.
    if response.status is not Status.OK or response.extracted is None:
        return False
    return _normal(response.extracted) == _normal(item.answer)


def accuracy_table(
    store: Store,
    benchmark: str | Sequence[str],
    by: Sequence[str] = (),
    *,
    variant: str | None = "default",
    models: Iterable[str] | None = None,
    item_ids: Collection[str] | None = None,
) -> list[AccuracyRow]:
    """Accuracy rows for every (model, variant, group) with responses on ``benchmark`` (one
    name, or several pooled together); only items in ``item_ids`` when given (a ``--limit``
    subset).

    ``by`` names facets (see :func:`available_facets`); an empty ``by`` gives one row per model.
    Several tables of one benchmark: read :func:`scored_answers` once and ask it for each.
    """
    answers = scored_answers(store, benchmark, variant=variant, item_ids=item_ids)
    return answers.table(by, models)
