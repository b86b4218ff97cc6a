"""Reading a judge's numbers back from its text, on the scale its protocol asks for.

A rating or score protocol owns its :class:`RatingScale` (TouchStone scores 1-10, its
hallucination judge rates 0-10, a new protocol may rate 1-5) and parses every reply with it. A
number given with its scale ("4/10", "4 out of 5") is read only when that scale is the
protocol's: "Rating: 4/10" on a 1-5 protocol is the judge answering on another scale, so it is
unparseable with that reason rather than a valid 4; "4/5" on the same protocol is 4. A number
outside ``low``-``high`` is unparseable too. Parsing never guesses: no number, or an apology,
is UNPARSEABLE or REFUSED with a reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from lvlmbench.judging.verdict import _NOUN, _REFUSAL
from lvlmbench.types import Judgment, Status

__all__ = ["ParsedRating", "ParsedScores", "RatingScale", "parse_rating", "parse_scores"]


@dataclass(frozen=True)
class ParsedScores:
    """Two scores (first shown, second shown) read from text, or why there are none."""

    first: float | None
    second: float | None
    status: Status
    reason: str | None = None

    def fields(self) -> dict[str, Any]:
        """What a stored Judgment takes from this parse."""
        return {
            "score_a": self.first,
            "score_b": self.second,
            "status": self.status,
            "reason": self.reason,
        }

    @classmethod
    def of(cls, row: Judgment) -> ParsedScores:
        """The two scores a stored row holds (first shown, second shown)."""
        return cls(row.score_a, row.score_b, row.status, row.reason)


@dataclass(frozen=True)
class ParsedRating:
    """One rating read from text, or why there is none."""

    value: float | None
    status: Status
    reason: str | None = None

    def fields(self) -> dict[str, Any]:
        """What a stored Judgment takes from this parse."""
        return {"score_a": self.value, "status": self.status, "reason": self.reason}

    @classmethod
    def of(cls, row: Judgment) -> ParsedRating:
        """The rating a stored row holds."""
        return cls(row.score_a, row.status, row.reason)


@dataclass(frozen=True)
class RatingScale:
    """The numbers a protocol's judge is asked for: ``low`` to ``high`` inclusive; ``words``
    say what the ends mean ("0 none - 10 all"), shown after the protocol's title."""

    low: float
    high: float
    words: str = ""

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ValueError(f"a rating scale needs low < high, got {self.low:g}-{self.high:g}")

    def __str__(self) -> str:
        return self.words or f"{self.low:g}-{self.high:g}"

    def parse(self, text: str) -> ParsedRating:
        """One rating on this scale (see :func:`parse_rating`)."""
        return parse_rating(text, self.low, self.high)

    def parse_pair(self, text: str) -> ParsedScores:
        """Two scores on this scale (see :func:`parse_scores`)."""
        return parse_scores(text, self.low, self.high)


_NUMBER = r"(\d+(?:\.\d+)?)"
# The scale a number is given on: "/10", "/ 5", "out of 10".
_OF = r"(?:\s*(?:/|out\s+of)\s*(\d+(?:\.\d+)?))?"


def _off_scale(of: list[str | None], low: float, high: float) -> str | None:
    """Why numbers given "out of" ``of`` are not on the ``low``-``high`` scale, or None."""
    other = sorted({float(o) for o in of if o is not None and float(o) != high})
    if not other:
        return None
    said = " and ".join(f"{o:g}" for o in other)
    return f"on a scale out of {said}, not the protocol's {low:g}-{high:g}"


_SCORE_LABEL = re.compile(
    rf"{_NOUN}\s*\(?\s*([ab12])\s*\)?\s*(?:'s\s+)?(?:score|rating)?\s*[:=\-]?\s*\**\s*"
    rf"(?:score\s*(?:of|:)?\s*)?{_NUMBER}{_OF}",
    re.IGNORECASE,
)
_SCORE_LINE = re.compile(
    rf"(?:scores?\s*[:=\-]?\s*)?{_NUMBER}{_OF}\s*(?:,|;|\band\b|\s)\s*{_NUMBER}{_OF}\.?",
    re.IGNORECASE,
)


def _json_pair(text: str) -> tuple[float, float] | None:
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            data = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        nums = [v for v in data.values() if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(nums) == 2:
            return float(nums[0]), float(nums[1])
    return None


def _pair(text: str) -> tuple[tuple[float, float], list[str | None]] | None:
    """Two scores and the scales they were given on (None: none said)."""
    pair = _json_pair(text)
    if pair is not None:
        return pair, []
    labelled: dict[str, tuple[float, str | None]] = {}
    for m in _SCORE_LABEL.finditer(text):
        labelled["a" if m.group(1).lower() in ("a", "1") else "b"] = (float(m.group(2)), m.group(3))
    if len(labelled) == 2:
        (a, of_a), (b, of_b) = labelled["a"], labelled["b"]
        return (a, b), [of_a, of_b]
    for line in text.splitlines():
        bare = _SCORE_LINE.fullmatch(line.strip(" \t*_`"))
        if bare:
            return (float(bare.group(1)), float(bare.group(3))), [bare.group(2), bare.group(4)]
    return None


def parse_scores(text: str, low: float = 1.0, high: float = 10.0) -> ParsedScores:
    """Two scores, first-shown answer's first: a JSON object with two numbers, labelled
    "Response A: 7 ... Response B: 9" (the last of each), or a line holding exactly two numbers
    ("8 7", "Scores: 8, 7", "8/10 7/10") — the first such line. Out of range, or given on
    another scale ("4/5 3/5" on 1-10), is unparseable."""
    if not text.strip():
        return ParsedScores(None, None, Status.UNPARSEABLE, "empty reply")
    found = _pair(text)
    if found is None:
        if _REFUSAL.search(text):
            return ParsedScores(None, None, Status.REFUSED, "the judge declined to score")
        return ParsedScores(None, None, Status.UNPARSEABLE, "no pair of scores found")
    pair, of = found
    off = _off_scale(of, low, high)
    if off is not None:
        return ParsedScores(None, None, Status.UNPARSEABLE, f"scores {pair} {off}")
    if not all(low <= v <= high for v in pair):
        return ParsedScores(
            None, None, Status.UNPARSEABLE, f"scores {pair} outside {low:g}-{high:g}"
        )
    return ParsedScores(pair[0], pair[1], Status.OK)


_RATING_LABEL = re.compile(
    rf"(?:hallucination\s*(?:score|rating|level)?|rating|score)\s*(?:is\s*)?[:=\-]?\s*\**\s*"
    rf"{_NUMBER}{_OF}",
    re.IGNORECASE,
)


def _json_rating(text: str) -> float | None:
    value = None
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            data = json.loads(m.group(0))
        except ValueError:
            continue
        nums = (
            [v for v in data.values() if isinstance(v, int | float)]
            if isinstance(data, dict)
            else []
        )
        if len(nums) == 1:
            value = float(nums[0])
    return value


def _rating(text: str) -> tuple[float, str | None] | None:
    """The rating and the scale it was given on (None: none said)."""
    value = _json_rating(text)
    if value is not None:
        return value, None
    labels = list(_RATING_LABEL.finditer(text))
    if labels:
        return float(labels[-1].group(1)), labels[-1].group(2)
    lines = [ln.strip(" *_.`") for ln in text.strip().splitlines() if ln.strip()]
    last = re.fullmatch(rf"{_NUMBER}{_OF}", lines[-1]) if lines else None
    return (float(last.group(1)), last.group(2)) if last else None


def parse_rating(text: str, low: float = 0.0, high: float = 10.0) -> ParsedRating:
    """One rating: the last "Rating: 3" / "Hallucination score: 3/10" / ``{"rating": 3}``, or
    a last line that is just a number ("4", "4/5"). Out of ``low``-``high``, or given on
    another scale ("Rating: 4/10" when ``high`` is 5), is unparseable."""
    if not text.strip():
        return ParsedRating(None, Status.UNPARSEABLE, "empty reply")
    found = _rating(text)
    if found is None:
        if _REFUSAL.search(text):
            return ParsedRating(None, Status.REFUSED, "the judge declined to rate")
        return ParsedRating(None, Status.UNPARSEABLE, "no rating found")
    value, of = found
    off = _off_scale([of], low, high)
    if off is not None:
        return ParsedRating(None, Status.UNPARSEABLE, f"rating {value:g}/{of} is {off}")
    if not low <= value <= high:
        return ParsedRating(None, Status.UNPARSEABLE, f"rating {value:g} outside {low:g}-{high:g}")
    return ParsedRating(value, Status.OK)
