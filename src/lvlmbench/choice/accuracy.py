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
With ``evaluate --epochs K`` every sample is one answer, so the accuracy is the mean over
epochs; its interval treats the item, not the sample, as the unit (Wilson on the per-item mean
score with n = items), because K samples of one item are not K independent items.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from lvlmbench.ratings import wilson_interval
from lvlmbench.store import AnswerFields, Store, iter_answer_fields, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = [
    "GROUPINGS",
    "AccuracyRow",
    "ScoredAnswers",
    "accuracy_table",
    "available_facets",
    "facet_name",
    "facet_value",
    "item_facets",
    "overall_rows",
    "response_correct",
    "scored_answers",
]

# Facets an accuracy table can be grouped by, all read from item metadata; any other metadata
# column of the benchmark's items (an imported file's `l2-category`, `split`, ...) works too.
GROUPINGS = ("capability", "general_aspect", "fine_aspect", "difficulty")


@dataclass(frozen=True)
class AccuracyRow:
    """Accuracy of one model on one group of items."""

    model: str
    variant: str
    group: tuple[str, ...]
    correct: int
    answered: int
    """ok + unparseable responses (the denominator)."""
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
    items: int = 0
    """Distinct items answered (``answered`` / epochs when every epoch is complete)."""

    @property
    def accuracy(self) -> float:
        """correct / answered (0 when nothing was answered): the mean over epochs."""
        return self.correct / self.answered if self.answered else 0.0

    @property
    def epochs(self) -> float:
        """Samples per item (1 for a single run)."""
        return self.answered / self.items if self.items else 1.0

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the accuracy, over items (see the module's note on epochs)."""
        if 0 < self.items < self.answered:  # several epochs: n is the number of items
            ci = wilson_interval(self.accuracy * self.items, self.items)
        else:
            ci = wilson_interval(self.correct, self.answered)
        return ci.low, ci.high


def item_facets(item: BenchmarkItem) -> dict[str, str]:
    """The grouping facets of an item (missing ones read as "-")."""
    facets = {key: str(item.meta.get(key, "-")) for key in GROUPINGS}
    if item.category and facets["capability"] == "-":
        facets["capability"] = item.category
    return facets


def facet_name(name: str) -> str:
    """The metadata key a facet is stored under: importers store ``l2-category`` as
    ``l2_category``, so both spellings name it."""
    return name.strip().replace("-", "_")


def facet_value(item: BenchmarkItem, name: str) -> str:
    """An item's value of facet ``name`` (a GROUPINGS facet, ``category`` or any metadata
    key; "-" when the item has none)."""
    if name in GROUPINGS:
        return item_facets(item)[name]
    key = facet_name(name)
    value = item.meta.get(key, item.meta.get(name))
    if value is None and key == "category":
        value = item.category
    return "-" if value is None or value == "" else str(value)


def available_facets(items: Iterable[BenchmarkItem]) -> list[str]:
    """The facets these items can be grouped by: GROUPINGS, ``category`` where items have one,
    and every metadata key holding text or numbers."""
    found: set[str] = set()
    for item in items:
        if item.category:
            found.add("category")
        found.update(
            key
            for key, value in item.meta.items()
            if isinstance(value, str | int | float) and not isinstance(value, bool)
        )
    return [*GROUPINGS, *sorted(found - set(GROUPINGS))]


_OK, _UNPARSEABLE = Status.OK.value, Status.UNPARSEABLE.value
_ERROR, _TRUNCATED = Status.ERROR.value, Status.TRUNCATED.value
_FAILED = (0, 0, 0, 1, 0, 0, 0, 0)
_NO_KEY = (0, 0, 0, 0, 0, 1, 0, 0)

Tally = tuple[int, int, int, int, int, int, int, int]
"""What answers add to their row, in AccuracyRow's order: correct, answered, unparseable,
failed, read by an LLM, no key, truncated, truncated and unread."""

# An answer as scoring sees it: model, variant, the item's GROUPINGS facets, and
# (status, has a key, is right, read by an LLM, truncated). Few distinct values per benchmark.
_Outcome = tuple[str, str, tuple[str, ...], tuple[str, bool, bool, bool, bool]]


def _tally(status: str, has_key: bool, right: bool, llm: bool, truncated: bool) -> Tally:
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
    one each. The answers are counted per distinct outcome and facet combination (a few
    hundred counts for 100k answers); a table adds those up. The items are parsed only when a
    table needs them."""

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
            item_id: (tuple(item_facets(item)[g] for g in GROUPINGS), _normal(item.answer))
            for item_id, item in self.items.items()
        }
        said: dict[str, str | None] = {}  # a few distinct replies ("A", "b "...), each once
        for a in self._answers:
            found = keys.get(a.item_id)
            if found is None:
                continue
            facets, key = found
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
            )
            yield (a.model, a.variant, facets, flags), a

    @functools.cached_property
    def _counts(self) -> tuple[Counter[_Outcome], Counter[tuple[str, str, tuple[str, ...]]]]:
        """Answers per outcome, and distinct answered items per (model, variant, facets)."""
        if not any(a.epoch for a in self._answers):
            # One sample per item: every answered row is a distinct item.
            counts = Counter(outcome for outcome, _ in self._outcomes())
            items: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
            for (model, var, facets, (status, has_key, *_)), n in counts.items():
                if status != _ERROR and has_key:
                    items[(model, var, facets)] += n
            return counts, items
        counts = Counter()
        answered: set[tuple[str, str, tuple[str, ...], str]] = set()
        for outcome, answer in self._outcomes():
            counts[outcome] += 1
            status, has_key = outcome[3][:2]
            if status != _ERROR and has_key:
                answered.add((*outcome[:3], answer.item_id))
        return counts, Counter((model, var, facets) for model, var, facets, _ in answered)

    def table(
        self, by: Sequence[str] = (), models: Iterable[str] | None = None
    ) -> list[AccuracyRow]:
        """Accuracy rows for every (model, variant, group); see :func:`accuracy_table`."""
        if not self._answers and all(b in GROUPINGS for b in by):
            return []  # nothing answered (a variant never run): the items need not be read
        if any(b not in GROUPINGS for b in by):
            return self._table_by_metadata(by, models)
        at = [GROUPINGS.index(b) for b in by]
        wanted = set(models) if models is not None else None
        counts, seen = self._counts
        totals: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
        items: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
        for (model, var, facets, flags), n in counts.items():
            if wanted is None or model in wanted:
                total = totals.setdefault((model, var, tuple(facets[i] for i in at)), [0] * 8)
                for i, value in enumerate(_tally(*flags)):
                    total[i] += n * value
        for (model, var, facets), n in seen.items():
            items[(model, var, tuple(facets[i] for i in at))] += n
        return _accuracy_rows(totals, items)

    def _table_by_metadata(
        self, by: Sequence[str], models: Iterable[str] | None
    ) -> list[AccuracyRow]:
        """A table grouped by metadata facets beyond GROUPINGS (an imported file's columns)."""
        known = available_facets(self.items.values())
        unknown = [b for b in by if b not in GROUPINGS and facet_name(b) not in known]
        if unknown:
            raise ValueError(f"cannot group by {unknown}; choose from {', '.join(known)}")
        group = {key: tuple(facet_value(item, b) for b in by) for key, item in self.items.items()}
        wanted = set(models) if models is not None else None
        totals: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
        answered: set[tuple[str, str, tuple[str, ...], str]] = set()
        for (model, var, _facets, flags), a in self._outcomes():
            if wanted is not None and model not in wanted:
                continue
            key = (model, var, group[a.item_id])
            total = totals.setdefault(key, [0] * 8)
            for i, value in enumerate(_tally(*flags)):
                total[i] += value
            if flags[0] != _ERROR and flags[1]:
                answered.add((*key, a.item_id))
        return _accuracy_rows(totals, Counter(key[:3] for key in answered))


def _normal(answer: str | None) -> str | None:
    """An answer or key as compared (case and surrounding spaces ignored)."""
    return None if answer is None else answer.strip().lower()


def _accuracy_rows(
    totals: dict[tuple[str, str, tuple[str, ...]], list[int]],
    items: Counter[tuple[str, str, tuple[str, ...]]],
) -> list[AccuracyRow]:
    return [
        AccuracyRow(
            model,
            var,
            key,
            correct=total[0],
            answered=total[1],
            unparseable=total[2],
            failed=total[3],
            llm_read=total[4],
            no_key=total[5],
            truncated=total[6],
            truncated_unread=total[7],
            items=items.get((model, var, key), 0),
        )
        for (model, var, key), total in sorted(totals.items())
    ]


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


def overall_rows(rows: Iterable[AccuracyRow]) -> list[AccuracyRow]:
    """One row per (model, variant) pooling all its groups (``group == ()``): the overall
    accuracy over every answered item, with its own Wilson interval (not a mean of groups,
    which would weigh a small group like a large one)."""
    pooled: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        tally = pooled.setdefault((row.model, row.variant), [0, 0, 0, 0, 0, 0])
        for i, value in enumerate(
            (row.correct, row.answered, row.unparseable, row.failed, row.llm_read, row.no_key)
        ):
            tally[i] += value
    return [
        AccuracyRow(model, variant, (), *tally)
        for (model, variant), tally in sorted(pooled.items())
    ]
