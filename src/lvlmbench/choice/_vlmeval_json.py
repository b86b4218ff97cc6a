"""The JSON shapes of the VLMEvalKit score rows (:mod:`lvlmbench.choice.vlmeval_scores`), as
``--json``, ``summary.json`` and the web API show them: the contract of those outputs."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from lvlmbench.ratings import CategoryTotalJSON

__all__ = ["CircularRowJSON", "MMECategoryJSON", "MMERowJSON", "MMETotalsJSON"]


class CircularRowJSON(TypedDict):
    """:meth:`CircularRow.as_dict`: a CircularEval table row as ``--json``, ``summary.json``
    and the web API show it (accuracies as fractions)."""

    model: str
    variant: str
    row_accuracy: float
    rows_correct: int
    rows: int
    copies: int
    circular_accuracy: float
    questions_correct: int
    questions: int
    incomplete: int
    unasked: int
    epochs: int
    group: NotRequired[list[str]]
    """The --by group's values (absent on the row over the whole benchmark)."""


class MMECategoryJSON(TypedDict):
    """:meth:`MMECategory.as_dict` (acc and acc+ in percent, as MME reports them)."""

    category: str
    acc: float
    acc_plus: float
    score: float
    questions: int
    correct: int
    images: int
    images_correct: int
    unanswered: int
    unasked_images: int
    epochs: int


class MMETotalsJSON(TypedDict):
    """MME's two sums with their coverage (:data:`MME_TOTALS`)."""

    perception: CategoryTotalJSON
    reasoning: CategoryTotalJSON


class MMERowJSON(TypedDict):
    """:meth:`MMERow.as_dict`: the sums (None unless complete), their coverage, the
    categories."""

    model: str
    variant: str
    perception: float | None
    reasoning: float | None
    unasked_images: int
    totals: MMETotalsJSON
    categories: list[MMECategoryJSON]
