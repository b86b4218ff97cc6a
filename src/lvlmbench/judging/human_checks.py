"""People's alignment checks of generated items: does the image match its description, is the
key right? Stored as judgments with protocol ``human-check`` (judge ``human:<annotator>``,
``model_a`` the question asked, verdict yes/no/unsure), so they travel with the store and a
second answer by the same person to the same question replaces the first.
"""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.ratings import Interval, wilson_interval
from lvlmbench.store import Store, iter_items, iter_judgments
from lvlmbench.types import Judgment

__all__ = [
    "CHECKS",
    "CHECK_ANSWERS",
    "HUMAN_CHECK",
    "CheckSummary",
    "check_judgment",
    "check_summaries",
]

HUMAN_CHECK = "human-check"
CHECKS = {
    "image-matches-description": "Does the image match the description?",
    "key-is-right": "Is the answer key right?",
}
CHECK_ANSWERS = ("yes", "no", "unsure")


def check_judgment(item_id: str, annotator: str, check: str, answer: str) -> Judgment:
    """The stored form of one answer; ValueError for an unknown check or answer."""
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; expected one of {', '.join(CHECKS)}")
    if answer not in CHECK_ANSWERS:
        raise ValueError(f"answer {answer!r} must be one of {', '.join(CHECK_ANSWERS)}")
    return Judgment(
        item_id=item_id,
        judge=f"human:{annotator}",
        protocol=HUMAN_CHECK,
        model_a=check,
        verdict=answer,
    )


@dataclass(frozen=True)
class CheckSummary:
    """How people answered one check on one benchmark."""

    check: str
    yes: int
    no: int
    unsure: int
    items: int
    """Distinct items checked."""

    @property
    def yes_rate(self) -> Interval | None:
        """Share of yes among yes+no answers, with a Wilson 95% interval (None without any)."""
        decided = self.yes + self.no
        return wilson_interval(self.yes, decided) if decided else None


def check_summaries(store: Store, benchmark: str) -> list[CheckSummary]:
    """One summary per check that has answers on ``benchmark``'s items."""
    ids = {item.id for item in iter_items(store, benchmark)}
    counts: dict[str, dict[str, int]] = {}
    items: dict[str, set[str]] = {}
    for judgment in iter_judgments(store, protocol=HUMAN_CHECK):
        if judgment.item_id not in ids or judgment.verdict not in CHECK_ANSWERS:
            continue
        tally = counts.setdefault(judgment.model_a, dict.fromkeys(CHECK_ANSWERS, 0))
        tally[judgment.verdict] += 1
        items.setdefault(judgment.model_a, set()).add(judgment.item_id)
    return [
        CheckSummary(check, tally["yes"], tally["no"], tally["unsure"], len(items[check]))
        for check, tally in sorted(counts.items())
    ]
