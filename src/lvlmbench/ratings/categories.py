"""Sums and means over categories: a total only over the complete set, never a partial one.

MME's perception score is the sum of its ten categories' scores (at most 2000); a sum over five
of them is no perception score at all, however it is labelled, and VLMEvalKit refuses to print
one. The same holds for any sum or mean over a fixed set of categories: a figure over part of
the set is not comparable with the published one. So:

- a sum or mean *over categories* (:func:`category_sum`, :func:`category_mean`) has a value
  only when every category of the set is present; otherwise it has none and says how many are
  present ("5 of 10 categories");
- a mean *over items* that is named for a set of categories (an "overall" over the levels or
  abilities of a benchmark) keeps its value, and its :class:`Coverage` says how many of the
  categories its items cover when that is not all of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TypedDict

__all__ = [
    "CategoryTotal",
    "CategoryTotalJSON",
    "Coverage",
    "CoverageJSON",
    "category_mean",
    "category_sum",
    "coverage",
]


class CoverageJSON(TypedDict):
    """:meth:`Coverage.as_dict`: the shape ``--json``, ``summary.json`` and the web API show."""

    text: str
    """ "5 of 10 categories"."""
    present: int
    expected: int
    complete: bool
    missing: list[str]


class CategoryTotalJSON(CoverageJSON):
    """:meth:`CategoryTotal.as_dict`: the value (None over a partial set) and its coverage."""

    value: float | None


@dataclass(frozen=True)
class Coverage:
    """Which categories of a fixed set (``expected``) a figure covers."""

    present: tuple[str, ...]
    """The expected categories that are present, sorted."""
    expected: tuple[str, ...]
    noun: str = "categories"
    """What the categories are called ("categories", "abilities", "difficulty levels")."""

    @property
    def complete(self) -> bool:
        """Whether every expected category is present."""
        return len(self.present) == len(self.expected)

    @property
    def missing(self) -> tuple[str, ...]:
        """The expected categories that are absent, sorted."""
        return tuple(c for c in self.expected if c not in self.present)

    def text(self) -> str:
        """ "5 of 10 categories"."""
        return f"{len(self.present)} of {len(self.expected)} {self.noun}"

    def as_dict(self) -> CoverageJSON:
        """JSON: how many present of how many ("text": "5 of 10 categories"), and which are
        missing."""
        return {
            "text": self.text(),
            "present": len(self.present),
            "expected": len(self.expected),
            "complete": self.complete,
            "missing": list(self.missing),
        }


def coverage(present: Iterable[str], expected: Iterable[str], noun: str = "categories") -> Coverage:
    """The coverage of ``expected`` by ``present`` (categories outside ``expected`` are not
    counted: they belong to no total of this set)."""
    wanted = sorted(set(expected))
    found = set(present)
    return Coverage(tuple(c for c in wanted if c in found), tuple(wanted), noun)


@dataclass(frozen=True)
class CategoryTotal:
    """A sum or mean over a fixed set of categories: ``value`` is None unless the set is
    complete."""

    value: float | None
    coverage: Coverage

    def shown(self, digits: int = 1) -> str:
        """The value, or "5 of 10 categories" where there is none."""
        if self.value is None:
            return self.coverage.text()
        return f"{self.value:.{digits}f}"

    def as_dict(self) -> CategoryTotalJSON:
        """JSON: the value (None over a partial set) and its coverage."""
        return {"value": self.value, **self.coverage.as_dict()}


def _total(
    scores: Mapping[str, float], expected: Collection[str], noun: str, mean: bool
) -> CategoryTotal:
    covered = coverage(scores, expected, noun)
    if not covered.complete or not covered.expected:
        return CategoryTotal(None, covered)
    values = [scores[c] for c in covered.expected]
    return CategoryTotal(sum(values) / len(values) if mean else sum(values), covered)


def category_sum(
    scores: Mapping[str, float], expected: Collection[str], noun: str = "categories"
) -> CategoryTotal:
    """The sum of ``scores`` over the ``expected`` categories; no value unless all are there."""
    return _total(scores, expected, noun, mean=False)


def category_mean(
    scores: Mapping[str, float], expected: Collection[str], noun: str = "categories"
) -> CategoryTotal:
    """The mean of ``scores`` over the ``expected`` categories (each weighing the same); no
    value unless all are there."""
    return _total(scores, expected, noun, mean=True)
