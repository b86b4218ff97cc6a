"""VLMEvalKit's own scores for the datasets users bring from it: MMBench CircularEval and
MME's acc / acc+ / score.

CircularEval (``vlmeval/dataset/utils/multiple_choice.py``): a question's copies carry index
``base + k * 1,000,000`` with rotated options; the copies of ``base`` are the rows whose
``index % 1,000,000`` is ``base``, and the question counts right only when every copy is right.
Here a copy whose answer failed (an empty prediction, a failed call) makes its question wrong,
as it would be on VLMEvalKit's server, and is counted in ``incomplete`` so the table says so; a
question with a copy never asked (a partial run, a prediction file without the row) is neither
right nor wrong: left out and counted in ``unasked``.

MME (``vlmeval/dataset/utils/yorn.py``, ``MME_rating``): per category, acc is the share of
questions right and acc+ the share of pictures whose questions (two each) are all right; the
category's score is ``100 * acc + 100 * acc+``; perception and reasoning are the sums of their
categories' scores (at most 2000 and 800). A question whose answer failed counts wrong; a
picture with a question never asked is left out of acc and acc+ and counted, as VLMEvalKit
scores only the rows of its prediction file. Unparseable and refused answers are wrong everywhere.
A sum is given only over all of its categories (ten for perception, four for reasoning): over
part of them it is no perception score, so there is none and the table says "5 of 10
categories" (VLMEvalKit stops with a KeyError; :mod:`lvlmbench.ratings.categories`).

With ``evaluate --epochs K`` each epoch is scored as VLMEvalKit would score that epoch's
prediction file, and the counts add up over the epochs: every accuracy is then the mean over
items (copies, questions, pictures) of each one's mean over the epochs, as everywhere else
(:class:`lvlmbench.stats.ItemMean`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from lvlmbench.choice._facets import facet_value
from lvlmbench.choice._vlmeval_json import (
    CircularRowJSON,
    MMECategoryJSON,
    MMERowJSON,
    MMETotalsJSON,
)
from lvlmbench.choice._vlmeval_rows import (
    CIRCULAR_STRIDE,
    MME_PERCEPTION,
    MME_REASONING,
    MME_TOTALS,
    CircularRow,
    MMECategory,
    MMERow,
)
from lvlmbench.choice.accuracy import response_correct
from lvlmbench.stats import ItemMean
from lvlmbench.store import Store, iter_benchmark_responses, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = [
    "CIRCULAR_STRIDE",
    "MME_PERCEPTION",
    "MME_REASONING",
    "MME_TOTALS",
    "CircularRow",
    "CircularRowJSON",
    "MMECategory",
    "MMECategoryJSON",
    "MMERow",
    "MMERowJSON",
    "MMETotalsJSON",
    "circular_groups",
    "circular_table",
    "mme_groups",
    "mme_table",
]


def _index(item: BenchmarkItem) -> int | None:
    value = item.meta.get("index", item.meta.get("source_key"))
    try:
        return int(float(str(value)))
    except (TypeError, ValueError):
        return None


def circular_groups(items: Iterable[BenchmarkItem]) -> dict[int, list[BenchmarkItem]]:
    """Base index → the question's copies (base first), for every choice question that has at
    least one circular copy; empty when the benchmark has none."""
    by_index = {i: item for item in items if item.kind == "mc" and (i := _index(item)) is not None}
    groups: dict[int, list[BenchmarkItem]] = defaultdict(list)
    for index in sorted(by_index):
        base = index % CIRCULAR_STRIDE
        if base in by_index:
            groups[base].append(by_index[index])
    return {base: copies for base, copies in groups.items() if len(copies) > 1}


def _answered(response: Response | None) -> bool:
    return response is not None and response.status is not Status.ERROR


def _right(item: BenchmarkItem, response: Response | None) -> bool:
    return response is not None and response_correct(item, response) is True


_Answers = dict[int, dict[str, Response]]
"""One model's responses: epoch → item id → its response."""


def _by_model(
    store: Store, benchmark: str, variant: str, models: Iterable[str] | None
) -> dict[tuple[str, str], _Answers]:
    wanted = set(models) if models is not None else None
    found: dict[tuple[str, str], _Answers] = defaultdict(dict)
    for response in iter_benchmark_responses(store, benchmark, variant=variant):
        if wanted is None or response.model in wanted:
            epochs = found[(response.model, response.variant)]
            epochs.setdefault(response.epoch, {})[response.item_id] = response
    return found


def circular_table(
    store: Store,
    benchmark: str,
    *,
    variant: str = "default",
    models: Iterable[str] | None = None,
    items: Iterable[BenchmarkItem] | None = None,
    by: Sequence[str] = (),
) -> list[CircularRow]:
    """Per-row and circular accuracy of every model with responses (none without copies),
    per group of the facets ``by`` (a question in the group of its base row, as VLMEvalKit
    reports MMBench per category) and then for the whole benchmark. ``items``: the
    benchmark's items when the caller has them already read."""
    groups = circular_groups(iter_items(store, benchmark) if items is None else items)
    keyed = [copies for copies in groups.values() if all(c.answer is not None for c in copies)]
    if not keyed:
        return []
    by_group: dict[tuple[str, ...], list[list[BenchmarkItem]]] = defaultdict(list)
    for copies in keyed:
        by_group[tuple(facet_value(copies[0], facet) for facet in by)].append(copies)
    rows: list[CircularRow] = []
    for (model, var), by_epoch in sorted(_by_model(store, benchmark, variant, models).items()):
        if len(by_group) > 1:  # one group is the whole benchmark, shown once below
            rows += [
                replace(_circular_row(model, var, by_epoch, questions), group=group)
                for group, questions in sorted(by_group.items())
            ]
        rows.append(_circular_row(model, var, by_epoch, keyed))
    return rows


def _circular_row(
    model: str, variant: str, by_epoch: _Answers, keyed: list[list[BenchmarkItem]]
) -> CircularRow:
    # copies answered, copies right, questions right, incomplete (a copy failed), unasked
    tally = [0, 0, 0, 0, 0]
    copies_seen: dict[str, list[int]] = {}  # copy id -> [right, answered] over the epochs
    for answers in by_epoch.values():
        for copies in keyed:
            got = [answers.get(c.id) for c in copies]
            right = [_right(c, r) for c, r in zip(copies, got, strict=True)]
            tally[0] += sum(_answered(r) for r in got)
            tally[1] += sum(right)
            if any(r is None for r in got):
                tally[4] += 1
            else:
                tally[2] += all(right)
                tally[3] += not all(_answered(r) for r in got)
            for copy, response, ok in zip(copies, got, right, strict=True):
                if _answered(response):
                    seen = copies_seen.setdefault(copy.id, [0, 0])
                    seen[0] += ok
                    seen[1] += 1
    rows_score = ItemMean.pooled(ItemMean.of_item(r, n) for r, n in copies_seen.values())
    return CircularRow(
        model,
        variant,
        rows=tally[0],
        rows_correct=tally[1],
        questions=len(keyed),
        questions_correct=tally[2],
        incomplete=tally[3],
        epochs=len(by_epoch),
        row_score=rows_score,
        unasked=tally[4],
    )


def _image_group(item: BenchmarkItem) -> str:
    for key in ("image_group", "image_path"):
        if item.meta.get(key):
            return str(item.meta[key])
    return "+".join(item.images) or str(_index(item))


def mme_groups(items: Iterable[BenchmarkItem]) -> dict[str, dict[str, list[BenchmarkItem]]]:
    """Category → picture → its yes/no questions with a key, for items imported from
    VLMEvalKit (they carry its ``index``); empty unless some picture has two or more
    questions (MME's layout)."""
    groups: dict[str, dict[str, list[BenchmarkItem]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        if item.kind == "tf" and item.answer is not None and _index(item) is not None:
            groups[item.category or "-"][_image_group(item)].append(item)
    paired = any(len(qs) > 1 for pictures in groups.values() for qs in pictures.values())
    return {c: dict(p) for c, p in sorted(groups.items())} if paired else {}


def mme_table(
    store: Store,
    benchmark: str,
    *,
    variant: str = "default",
    models: Iterable[str] | None = None,
    items: Iterable[BenchmarkItem] | None = None,
) -> list[MMERow]:
    """MME acc / acc+ / score per category for every model with responses. ``items``: the
    benchmark's items when the caller has them already read."""
    groups = mme_groups(iter_items(store, benchmark) if items is None else items)
    if not groups:
        return []
    return [
        _mme_row(model, var, groups, by_epoch)
        for (model, var), by_epoch in sorted(_by_model(store, benchmark, variant, models).items())
    ]


def _mme_row(
    model: str, variant: str, groups: dict[str, dict[str, list[BenchmarkItem]]], by_epoch: _Answers
) -> MMERow:
    """Each category a model was asked a whole picture of; one with none has no score (a 0.0
    over nothing would read as a failed category), so it is absent, as an unseen one is."""
    found = [_mme_category(c, pictures, by_epoch) for c, pictures in groups.items()]
    asked = [c for c in found if c.images * c.epochs > c.unasked_images]
    return MMERow(model, variant, asked, sum(c.unasked_images for c in found))


def _mme_category(
    category: str, pictures: dict[str, list[BenchmarkItem]], by_epoch: _Answers
) -> MMECategory:
    questions = sum(len(qs) for qs in pictures.values())
    # right questions, right pictures, failed questions, unasked pictures, their questions
    tally = [0, 0, 0, 0, 0]
    for answers in by_epoch.values():
        for qs in pictures.values():
            got = [answers.get(q.id) for q in qs]
            if any(r is None for r in got):
                tally[3] += 1
                tally[4] += len(qs)
                continue
            right = [_right(q, r) for q, r in zip(qs, got, strict=True)]
            tally[0] += sum(right)
            tally[1] += all(right)
            tally[2] += sum(not _answered(r) for r in got)
    return MMECategory(
        category,
        questions,
        tally[0],
        len(pictures),
        tally[1],
        tally[2],
        len(by_epoch),
        unasked_images=tally[3],
        unasked_questions=tally[4],
    )
