"""Whose votes an agreement figure counts: annotator groups, as the vote file names them.

A vote file names each annotator (``judge`` ``expert_12``, ``author_3``; VisIT-Bench's crowd
votes are numbered ``crowd-1`` ... on import) and the group is that name without its number:
``expert``, ``author``, ``crowd``. MT-bench's human judgments hold two groups that FastChat
keeps apart: ``compute_agreement.py`` compares judges with, and people with, the ``expert_*``
votes only (its "human"); the ``author_*`` votes are the paper's authors. Pooling them gives
another figure. So an agreement is computed over one group, or ``all`` of them, and says which:
by default ``expert`` where the benchmark has expert votes (FastChat's figure on the same
file), else ``all`` (VisIT-Bench's crowd, votes cast in the web app).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lvlmbench.judging.counted_votes import counted_votes
from lvlmbench.store import Store, benchmark_item_ids

__all__ = ["ALL_ANNOTATORS", "EXPERT", "Annotators", "annotator_group", "choose_annotators"]

ALL_ANNOTATORS = "all"
"""Every group pooled."""
EXPERT = "expert"
"""FastChat's "human" in ``compute_agreement.py``: the default where a benchmark has some."""
_HUMAN = "human"
_NUMBERED = re.compile(r"(?:[_-]?\d+)+$")


def annotator_group(judge: str) -> str:
    """The group of a human vote's judge: the annotator's name without its number
    ("human:expert_12" and "human:expert_12-2" are ``expert``, "human:crowd-3" ``crowd``)."""
    name = judge.split(":", 1)[1] if judge.startswith(_HUMAN + ":") else judge
    return _NUMBERED.sub("", name) or name


@dataclass(frozen=True)
class Annotators:
    """The votes an agreement counts: one group or all, and what that leaves out."""

    group: str
    """A group (``expert``) or :data:`ALL_ANNOTATORS`."""
    default: bool
    """Whether it was chosen by default, not asked for."""
    votes: int
    """Votes on the benchmark in ``group``."""
    left_out: dict[str, int]
    """Votes of every other group, by group."""

    def admits(self, judge: str) -> bool:
        """Whether a vote by ``judge`` (``human:<annotator>``) counts."""
        return self.group == ALL_ANNOTATORS or annotator_group(judge) == self.group

    def describe(self) -> str:
        """What the figures are over, as the CLI and the report say it."""
        how = " (the default: FastChat's)" if self.default and self.group == EXPERT else ""
        how = how or (" (the default)" if self.default else "")
        said = f"annotators {self.group}{how}: {self.votes} votes"
        if self.left_out:
            others = ", ".join(f"{g} {n}" for g, n in sorted(self.left_out.items()))
            said += f"; left out: {others}"
        return said

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: the group, whether by default, the votes counted and left out."""
        return {
            "group": self.group,
            "default": self.default,
            "votes": self.votes,
            "left_out": dict(sorted(self.left_out.items())),
        }


def choose_annotators(store: Store, benchmark: str, wanted: str | None = None) -> Annotators:
    """The annotators ``wanted`` (a group, ``all``, or None for the default) among the human
    votes on ``benchmark``; ValueError naming the groups there are when it has no votes."""
    items = set(benchmark_item_ids(store, benchmark))
    groups = Counter(annotator_group(j.judge) for j in counted_votes(store) if j.item_id in items)
    default = wanted is None
    group = (EXPERT if EXPERT in groups else ALL_ANNOTATORS) if wanted is None else wanted.strip()
    if group != ALL_ANNOTATORS and group not in groups:
        have = ", ".join(f"{g} ({n} votes)" for g, n in sorted(groups.items())) or "none"
        raise ValueError(
            f"no votes by annotator group {group!r} on benchmark {benchmark!r}; groups: {have}"
            f" (or {ALL_ANNOTATORS!r})"
        )
    if group == ALL_ANNOTATORS:
        return Annotators(group, default, sum(groups.values()), {})
    return Annotators(
        group, default, groups[group], {g: n for g, n in groups.items() if g != group}
    )
