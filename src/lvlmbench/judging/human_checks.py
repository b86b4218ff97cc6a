"""People's alignment checks of generated items: does the image match its description, does the
description test its aspect, is the key right? (The paper's Table 4: alignment rates per level,
with and without the description guidelines.) Stored as judgments with protocol
``human-check`` (judge ``human:<annotator>``, ``model_a`` the question asked, verdict
yes/no/unsure), so they travel with the store and a second answer by the same person to the
same question replaces the first. An excluded annotator's answers count nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.judging.counted_votes import counted_votes
from lvlmbench.ratings import Interval, wilson_interval
from lvlmbench.stats import RaterAgreement, rater_agreement
from lvlmbench.store import Store, benchmark_item_ids, iter_items
from lvlmbench.types import Judgment

__all__ = [
    "CHECKS",
    "CHECK_ANSWERS",
    "HUMAN_CHECK",
    "AlignmentRate",
    "CheckSummary",
    "alignment_rates",
    "check_judgment",
    "check_summaries",
]

HUMAN_CHECK = "human-check"
CHECKS = {
    "image-matches-description": "Does the image match the description?",
    "description-matches-aspect": "Does the description test the aspect it was written for?",
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
    agreement: RaterAgreement | None = None
    """Between annotators, on the items two or more of them answered yes or no (an unsure
    answer decides nothing here either): Fleiss' κ, or Krippendorff's α where items have
    different numbers of answers."""

    @property
    def yes_rate(self) -> Interval | None:
        """Share of yes among yes+no answers, with a Wilson 95% interval (None without any)."""
        decided = self.yes + self.no
        return wilson_interval(self.yes, decided) if decided else None


def check_summaries(store: Store, benchmark: str) -> list[CheckSummary]:
    """One summary per check that has answers on ``benchmark``'s items."""
    ids = set(benchmark_item_ids(store, benchmark))  # ids only: no item is parsed
    counts: dict[str, dict[str, int]] = {}
    items: dict[str, set[str]] = {}
    decided: dict[str, list[tuple[str, str, str]]] = {}
    for judgment in counted_votes(store, HUMAN_CHECK):
        if judgment.item_id not in ids or judgment.verdict not in CHECK_ANSWERS:
            continue
        tally = counts.setdefault(judgment.model_a, dict.fromkeys(CHECK_ANSWERS, 0))
        tally[judgment.verdict] += 1
        items.setdefault(judgment.model_a, set()).add(judgment.item_id)
        if judgment.verdict != "unsure":
            answer = (judgment.item_id, judgment.judge, judgment.verdict)
            decided.setdefault(judgment.model_a, []).append(answer)
    return [
        CheckSummary(
            check,
            tally["yes"],
            tally["no"],
            tally["unsure"],
            len(items[check]),
            rater_agreement(decided.get(check, [])),
        )
        for check, tally in sorted(counts.items())
    ]


@dataclass(frozen=True)
class AlignmentRate:
    """One check at one difficulty level: the share of aligned (yes) answers."""

    check: str
    level: str
    yes: int
    no: int
    unsure: int

    @property
    def rate(self) -> float | None:
        """yes / (yes + no); unsure answers decide nothing (None without any decided)."""
        decided = self.yes + self.no
        return self.yes / decided if decided else None

    @property
    def interval(self) -> Interval | None:
        """Wilson 95% interval of :attr:`rate`."""
        decided = self.yes + self.no
        return wilson_interval(self.yes, decided) if decided else None


def alignment_rates(store: Store, benchmark: str) -> list[AlignmentRate]:
    """Per check and difficulty level (``"-"`` for items without one), every person's answers
    on ``benchmark``'s items: the paper's alignment rate, counted per answer."""
    answers = list(counted_votes(store, HUMAN_CHECK))
    if not answers:  # the usual case: no item needs parsing for its level
        return []
    levels = {
        item.id: str(item.meta.get("difficulty", "-")) for item in iter_items(store, benchmark)
    }
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for judgment in answers:
        level = levels.get(judgment.item_id)
        if level is None or judgment.verdict not in CHECK_ANSWERS:
            continue
        key = (judgment.model_a, level)
        counts.setdefault(key, dict.fromkeys(CHECK_ANSWERS, 0))[judgment.verdict] += 1
    order = {"easy": 0, "medium": 1, "hard": 2}
    return [
        AlignmentRate(check, level, tally["yes"], tally["no"], tally["unsure"])
        for (check, level), tally in sorted(
            counts.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 3), kv[0][1])
        )
    ]
