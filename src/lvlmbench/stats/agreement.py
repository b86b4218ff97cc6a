"""Agreement between annotators beyond chance, for nominal answers (yes / no, a category).

- :func:`fleiss_kappa` (Fleiss 1971): every item answered by the same number of annotators
  (not necessarily the same people). κ = (P̄ − P̄e) / (1 − P̄e), P̄ the mean share of agreeing
  pairs per item, P̄e the chance of a pair agreeing from the answers' overall shares.
- :func:`krippendorff_alpha` (nominal): any number of annotators per item (items with one
  answer carry no pair and are left out). α = 1 − (n − 1) · D_o / D_e over the coincidence
  matrix of pairable answers.

:func:`rater_agreement` takes (item, annotator, answer) triples and picks: κ where every item
left has the same count, α otherwise; it says which, with the items and annotators counted.
Both are undefined (None, with the reason) when every answer is the same category: no
disagreement is possible to beat by chance.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "FLEISS_KAPPA",
    "KRIPPENDORFF_ALPHA",
    "RaterAgreement",
    "fleiss_kappa",
    "krippendorff_alpha",
    "rater_agreement",
]

AgreementMethod = Literal["Fleiss' κ", "Krippendorff's α"]
FLEISS_KAPPA: AgreementMethod = "Fleiss' κ"
KRIPPENDORFF_ALPHA: AgreementMethod = "Krippendorff's α"


def _checked(counts: Sequence[Sequence[int]]) -> list[list[int]]:
    rows = [list(row) for row in counts]
    width = {len(row) for row in rows}
    if len(width) > 1 or any(value < 0 for row in rows for value in row):
        raise ValueError("counts: one row per item, one non-negative count per category")
    return rows


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' κ of an items × categories matrix of answer counts, every row summing to the
    same number of annotators (at least 2); None when every answer is one category.
    ValueError for rows of different sums."""
    rows = _checked(counts)
    if not rows:
        return None
    raters = {sum(row) for row in rows}
    if len(raters) != 1 or min(raters) < 2:
        raise ValueError(
            "Fleiss' κ needs the same number of answers (at least 2) on every item; "
            "use krippendorff_alpha for varying numbers"
        )
    n = raters.pop()
    items = len(rows)
    agreed = sum((sum(c * c for c in row) - n) / (n * (n - 1)) for row in rows) / items
    shares = [sum(row[j] for row in rows) / (items * n) for j in range(len(rows[0]))]
    chance = sum(p * p for p in shares)
    if chance >= 1.0:
        return None
    return (agreed - chance) / (1.0 - chance)


def krippendorff_alpha(counts: Sequence[Sequence[int]]) -> float | None:
    """Krippendorff's α (nominal) of an items × categories matrix of answer counts; items with
    fewer than 2 answers are left out. None when under 2 pairable answers remain or every
    answer is one category."""
    rows = [row for row in _checked(counts) if sum(row) >= 2]
    if not rows:
        return None
    categories = range(len(rows[0]))
    # The coincidence matrix's diagonal and margins: each item's pairs weigh 1 / (m_u - 1).
    same = sum(row[c] * (row[c] - 1) / (sum(row) - 1) for row in rows for c in categories)
    margins = [sum(row[c] for row in rows) for c in categories]
    total = sum(margins)
    expected = total * total - sum(m * m for m in margins)
    if expected <= 0:
        return None
    return 1.0 - (total - 1) * (total - same) / expected


@dataclass(frozen=True)
class RaterAgreement:
    """Agreement between annotators on one question, over the items with 2+ answers."""

    method: AgreementMethod
    value: float | None
    """κ or α; None when undefined (see ``reason``)."""
    items: int
    """Items with at least two answers (the others carry no pair)."""
    annotators: int
    """Distinct annotators who answered those items."""
    answers: int
    """Answers on those items."""
    reason: str | None = None
    """Why ``value`` is None."""


def rater_agreement(
    answers: Sequence[tuple[Hashable, Hashable, Hashable]],
) -> RaterAgreement:
    """(item, annotator, answer) triples (one per annotator and item) → Fleiss' κ where every
    item with 2+ answers has the same number, Krippendorff's α (nominal) otherwise."""
    by_item: dict[Hashable, list[tuple[Hashable, Hashable]]] = {}
    for item, annotator, answer in answers:
        by_item.setdefault(item, []).append((annotator, answer))
    pairable = {item: given for item, given in by_item.items() if len(given) >= 2}
    categories = sorted({answer for given in pairable.values() for _, answer in given}, key=str)
    counts = [
        [sum(answer == c for _, answer in given) for c in categories] for given in pairable.values()
    ]
    annotators = len({annotator for given in pairable.values() for annotator, _ in given})
    sizes = {len(given) for given in pairable.values()}
    method: AgreementMethod = FLEISS_KAPPA if len(sizes) == 1 else KRIPPENDORFF_ALPHA
    total = sum(len(given) for given in pairable.values())
    if not counts:
        return RaterAgreement(method, None, 0, annotators, total, "no item has two answers")
    value = fleiss_kappa(counts) if method == FLEISS_KAPPA else krippendorff_alpha(counts)
    reason = "every answer is the same: no chance to beat" if value is None else None
    return RaterAgreement(method, value, len(counts), annotators, total, reason)
