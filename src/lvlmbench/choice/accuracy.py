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

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from lvlmbench.ratings import wilson_interval
from lvlmbench.store import Store, iter_benchmark_responses, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = [
    "GROUPINGS",
    "AccuracyRow",
    "accuracy_table",
    "available_facets",
    "facet_name",
    "facet_value",
    "item_facets",
    "overall_rows",
    "response_correct",
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


def _is_correct(item: BenchmarkItem, response: Response) -> bool:
    if response.status is not Status.OK or response.extracted is None or item.answer is None:
        return False
    return response.extracted.strip().lower() == item.answer.strip().lower()


def response_correct(item: BenchmarkItem, response: Response) -> bool | None:
    """Whether a response counts as right under this module's counting rule; None when it is
    not scored (a failed call, or an item without a key)."""
    if response.status is Status.ERROR or item.answer is None:
        return None
    return _is_correct(item, response)


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
    """
    names = [benchmark] if isinstance(benchmark, str) else list(benchmark)
    items = {
        item.id: item
        for name in names
        for item in iter_items(store, name)
        if item.kind != "open" and (item_ids is None or item.id in item_ids)
    }
    known = available_facets(items.values())
    unknown = [b for b in by if b not in GROUPINGS and facet_name(b) not in known]
    if unknown:
        raise ValueError(f"cannot group by {unknown}; choose from {', '.join(known)}")
    wanted = set(models) if models is not None else None
    counts: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
    seen: dict[tuple[str, str, tuple[str, ...]], set[str]] = {}
    where = {"variant": variant} if variant is not None else {}
    responses = (r for name in names for r in iter_benchmark_responses(store, name, **where))
    for response in responses:
        item = items.get(response.item_id)
        if item is None or (wanted is not None and response.model not in wanted):
            continue
        key = (response.model, response.variant, tuple(facet_value(item, b) for b in by))
        # correct, answered, unparseable, failed, read by an LLM, no key, truncated, truncated
        # and unread (AccuracyRow's order)
        tally = counts.setdefault(key, [0, 0, 0, 0, 0, 0, 0, 0])
        if response.status is Status.ERROR:
            tally[3] += 1
            continue
        if item.answer is None:
            tally[5] += 1
            continue
        tally[1] += 1
        tally[0] += _is_correct(item, response)
        tally[2] += response.status is Status.UNPARSEABLE
        tally[4] += response.status is Status.OK and response.extracted_by is not None
        tally[6] += response.truncated
        tally[7] += response.status is Status.TRUNCATED
        seen.setdefault(key, set()).add(response.item_id)
    return [
        AccuracyRow(
            model,
            var,
            group,
            correct=tally[0],
            answered=tally[1],
            unparseable=tally[2],
            failed=tally[3],
            llm_read=tally[4],
            no_key=tally[5],
            truncated=tally[6],
            truncated_unread=tally[7],
            items=len(seen.get((model, var, group), ())),
        )
        for (model, var, group), tally in sorted(counts.items())
    ]


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
