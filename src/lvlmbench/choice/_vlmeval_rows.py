"""The records of VLMEvalKit's scores (:mod:`lvlmbench.choice.vlmeval_scores` computes them):
a CircularEval row, an MME category and an MME row, with their JSON shapes; kept apart so the
scoring module stays readable."""

from __future__ import annotations

from dataclasses import dataclass, field

from lvlmbench.choice._vlmeval_json import (
    CircularRowJSON,
    MMECategoryJSON,
    MMERowJSON,
)
from lvlmbench.ratings import CategoryTotal, category_sum
from lvlmbench.stats import ItemMean

__all__ = [
    "CIRCULAR_STRIDE",
    "MME_PERCEPTION",
    "MME_REASONING",
    "MME_TOTALS",
    "CircularRow",
    "MMECategory",
    "MMERow",
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
MME_TOTALS = {"perception": MME_PERCEPTION, "reasoning": MME_REASONING}
"""MME's two sums and the categories each adds up (VLMEvalKit's ``super_cates``)."""


@dataclass(frozen=True)
class CircularRow:
    """One model's per-row and circular accuracy on a benchmark with circular copies."""

    model: str
    variant: str
    rows: int
    """Copies answered (ok, unparseable or refused), over all epochs."""
    rows_correct: int
    questions: int
    """Questions (base rows with a key): the circular denominator (per epoch)."""
    questions_correct: int
    """Questions right in every copy, added up over the epochs."""
    incomplete: int
    """Questions with a copy failed (counted wrong, as VLMEvalKit counts them), added up over
    the epochs."""
    epochs: int = 1
    row_score: ItemMean = field(default_factory=ItemMean)
    """Per-row accuracy over the answered copies, each copy's epochs averaged first."""
    group: tuple[str, ...] = ()
    """The question's values of the facets the table is grouped by (``evaluate --by``; the
    base row's, as VLMEvalKit groups its copies), empty for the whole benchmark."""
    unasked: int = 0
    """Questions with a copy never asked (a partial run), added up over the epochs: neither
    right nor wrong, left out of the circular accuracy and counted here."""

    @property
    def row_accuracy(self) -> float:
        return self.row_score.mean

    @property
    def asked(self) -> int:
        """Questions asked in full (every copy has a stored answer or failure), over epochs."""
        return self.questions * self.epochs - self.unasked

    @property
    def circular_accuracy(self) -> float:
        # Over the questions asked in full: a copy a partial run never asked is not a wrong
        # answer (a failed one is, as VLMEvalKit counts it).
        return self.questions_correct / self.asked if self.asked else 0.0

    def as_dict(self) -> CircularRowJSON:
        """A JSON-ready dict (accuracies as fractions)."""
        row: CircularRowJSON = {
            "model": self.model,
            "variant": self.variant,
            "row_accuracy": self.row_accuracy,
            "rows_correct": self.rows_correct,
            "rows": self.rows,
            "copies": self.row_score.items,
            "circular_accuracy": self.circular_accuracy,
            "questions_correct": self.questions_correct,
            "questions": self.questions,
            "incomplete": self.incomplete,
            "unasked": self.unasked,
            "epochs": self.epochs,
        }
        if self.group:
            row["group"] = list(self.group)
        return row


@dataclass(frozen=True)
class MMECategory:
    """acc, acc+ and score of one MME category (counts added up over the epochs)."""

    category: str
    questions: int
    correct: int
    images: int
    images_correct: int
    unanswered: int
    """Questions asked whose answer failed (counted wrong)."""
    epochs: int = 1
    unasked_images: int = 0
    """Pictures with a question never asked (a partial run), over the epochs: left out of acc
    and acc+ with their questions, neither right nor wrong."""
    unasked_questions: int = 0
    """The questions of those pictures."""

    @property
    def acc(self) -> float:
        total = self.questions * self.epochs - self.unasked_questions
        return 100 * self.correct / total if total else 0.0

    @property
    def acc_plus(self) -> float:
        total = self.images * self.epochs - self.unasked_images
        return 100 * self.images_correct / total if total else 0.0

    @property
    def score(self) -> float:
        return self.acc + self.acc_plus

    def as_dict(self) -> MMECategoryJSON:
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
            "unasked_images": self.unasked_images,
            "epochs": self.epochs,
        }


@dataclass(frozen=True)
class MMERow:
    """One model's MME table: per category, and the perception / reasoning sums."""

    model: str
    variant: str
    categories: list[MMECategory] = field(default_factory=list)
    unasked_images: int = 0
    """Pictures with a question never asked, over the epochs, in every category (a category
    with no picture asked in full is absent from ``categories``)."""

    def total(self, name: str) -> CategoryTotal:
        """``perception`` or ``reasoning``: the sum of its categories' scores, with a value only
        when every one of them is present."""
        # A category with a picture never asked has a score over part of it: no sum over it.
        scores = {c.category: c.score for c in self.categories if not c.unasked_images}
        return category_sum(scores, MME_TOTALS[name])

    def as_dict(self) -> MMERowJSON:
        """A JSON-ready dict: the perception and reasoning sums (None unless complete), how
        many of their categories are present (``totals``), and the categories."""
        perception, reasoning = self.total("perception"), self.total("reasoning")
        return {
            "model": self.model,
            "variant": self.variant,
            "perception": perception.value,
            "reasoning": reasoning.value,
            "unasked_images": self.unasked_images,
            "totals": {"perception": perception.as_dict(), "reasoning": reasoning.as_dict()},
            "categories": [c.as_dict() for c in self.categories],
        }
