"""VLMEvalKit's own scores for the datasets users bring from it: MMBench CircularEval and
MME's acc / acc+ / score.

CircularEval (``vlmeval/dataset/utils/multiple_choice.py``): a question's copies carry index
``base + k * 1,000,000`` with rotated options; the copies of ``base`` are the rows whose
``index % 1,000,000`` is ``base``, and the question counts right only when every copy is right.
Here a copy without a usable answer (no prediction, a failed call) makes its question wrong,
as it would be on VLMEvalKit's server, and is counted in ``incomplete`` so the table says so.

MME (``vlmeval/dataset/utils/yorn.py``, ``MME_rating``): per category, acc is the share of
questions right and acc+ the share of pictures whose questions (two each) are all right; the
category's score is ``100 * acc + 100 * acc+``; perception and reasoning are the sums of their
categories' scores (at most 2000 and 800). A question without a usable answer counts wrong,
as VLMEvalKit scores every row. Unparseable and refused answers are wrong everywhere.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.store import Store, iter_benchmark_responses, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = [
    "CIRCULAR_STRIDE",
    "MME_PERCEPTION",
    "MME_REASONING",
    "CircularRow",
    "MMECategory",
    "MMERow",
    "circular_groups",
    "circular_table",
    "mme_groups",
    "mme_table",
]

CIRCULAR_STRIDE = 1_000_000
MME_PERCEPTION = frozenset(
    {
        *("OCR", "artwork", "celebrity", "color", "count", "existence"),
        *("landmark", "position", "posters", "scene"),
    }
)
MME_REASONING = frozenset(
    ("code_reasoning", "commonsense_reasoning", "numerical_calculation", "text_translation")
)


@dataclass(frozen=True)
class CircularRow:
    """One model's per-row and circular accuracy on a benchmark with circular copies."""

    model: str
    variant: str
    rows: int
    """Copies answered (ok, unparseable or refused): the per-row denominator."""
    rows_correct: int
    questions: int
    """Questions (base rows with a key): the circular denominator."""
    questions_correct: int
    incomplete: int
    """Questions with a copy unanswered or failed: counted wrong."""

    @property
    def row_accuracy(self) -> float:
        return self.rows_correct / self.rows if self.rows else 0.0

    @property
    def circular_accuracy(self) -> float:
        return self.questions_correct / self.questions if self.questions else 0.0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (accuracies as fractions)."""
        return {
            "model": self.model,
            "variant": self.variant,
            "row_accuracy": self.row_accuracy,
            "rows_correct": self.rows_correct,
            "rows": self.rows,
            "circular_accuracy": self.circular_accuracy,
            "questions_correct": self.questions_correct,
            "questions": self.questions,
            "incomplete": self.incomplete,
        }


@dataclass(frozen=True)
class MMECategory:
    """acc, acc+ and score of one MME category."""

    category: str
    questions: int
    correct: int
    images: int
    images_correct: int
    unanswered: int
    """Questions without a usable answer (counted wrong)."""

    @property
    def acc(self) -> float:
        return 100 * self.correct / self.questions if self.questions else 0.0

    @property
    def acc_plus(self) -> float:
        return 100 * self.images_correct / self.images if self.images else 0.0

    @property
    def score(self) -> float:
        return self.acc + self.acc_plus

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (acc and acc+ in percent, as MME reports them)."""
        return {
            "category": self.category,
            "acc": self.acc,
            "acc_plus": self.acc_plus,
            "score": self.score,
            "questions": self.questions,
            "correct": self.correct,
            "images": self.images,
            "images_correct": self.images_correct,
            "unanswered": self.unanswered,
        }


@dataclass(frozen=True)
class MMERow:
    """One model's MME table: per category, and the perception / reasoning sums."""

    model: str
    variant: str
    categories: list[MMECategory] = field(default_factory=list)

    def total(self, names: frozenset[str]) -> float | None:
        """Sum of the scores of the categories in ``names`` (None when none is present)."""
        scores = [c.score for c in self.categories if c.category in names]
        return sum(scores) if scores else None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: perception and reasoning sums (None when absent), categories."""
        return {
            "model": self.model,
            "variant": self.variant,
            "perception": self.total(MME_PERCEPTION),
            "reasoning": self.total(MME_REASONING),
            "categories": [c.as_dict() for c in self.categories],
        }


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
    if response is None or response.status is not Status.OK or response.extracted is None:
        return False
    return item.answer is not None and response.extracted.strip().lower() == item.answer.lower()


def _by_model(
    store: Store, benchmark: str, variant: str, models: Iterable[str] | None
) -> dict[tuple[str, str], dict[str, Response]]:
    wanted = set(models) if models is not None else None
    found: dict[tuple[str, str], dict[str, Response]] = defaultdict(dict)
    for response in iter_benchmark_responses(store, benchmark, variant=variant):
        if wanted is None or response.model in wanted:
            found[(response.model, response.variant)][response.item_id] = response
    return found


def circular_table(
    store: Store,
    benchmark: str,
    *,
    variant: str = "default",
    models: Iterable[str] | None = None,
    items: Iterable[BenchmarkItem] | None = None,
) -> list[CircularRow]:
    """Per-row and circular accuracy of every model with responses (none without copies).
    ``items``: the benchmark's items when the caller has them already read."""
    groups = circular_groups(iter_items(store, benchmark) if items is None else items)
    keyed = [copies for copies in groups.values() if all(c.answer is not None for c in copies)]
    if not keyed:
        return []
    rows = []
    for (model, var), answers in sorted(_by_model(store, benchmark, variant, models).items()):
        tally = [0, 0, 0, 0, 0]
        for copies in keyed:
            got = [answers.get(c.id) for c in copies]
            tally[0] += sum(_answered(r) for r in got)
            tally[1] += sum(_right(c, r) for c, r in zip(copies, got, strict=True))
            tally[2] += 1
            tally[3] += all(_right(c, r) for c, r in zip(copies, got, strict=True))
            tally[4] += not all(_answered(r) for r in got)
        rows.append(CircularRow(model, var, *tally))
    return rows


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
    rows = []
    for (model, var), answers in sorted(_by_model(store, benchmark, variant, models).items()):
        categories = []
        for category, pictures in groups.items():
            tally = [0, 0, 0, 0, 0]
            for questions in pictures.values():
                right = [_right(q, answers.get(q.id)) for q in questions]
                tally[0] += len(questions)
                tally[1] += sum(right)
                tally[2] += 1
                tally[3] += all(right)
                tally[4] += sum(not _answered(answers.get(q.id)) for q in questions)
            categories.append(MMECategory(category, *tally))
        rows.append(MMERow(model, var, categories))
    return rows
