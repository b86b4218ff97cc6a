"""What the vote-file importers share: joining a vote row to a stored item, the parsed vote, and
writing votes (and the answers they carry) once the whole file has been validated.

A vote row names its item the way its project does: VisIT-Bench by image URL and instruction,
FastChat by ``question_id``. :class:`ItemIndex` resolves both against the benchmark's stored
items. A row that matches no item is not an error (a vote file often covers more instances
than the subset imported) but it is never dropped silently: the summary counts the unmatched
rows and names the first few by key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.datasets.importers.lookup import item_lookup
from lvlmbench.store import (
    Store,
    get_benchmark,
    iter_judgments,
    iter_responses,
    judgment_id,
    judgment_ids,
    put_judgments,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Judgment, Response, Status

__all__ = [
    "CROWD",
    "REFERENCE_NAMES",
    "ItemIndex",
    "ParsedVote",
    "player_name",
    "store_votes",
]

REFERENCE = "reference"
"""The player whose answer is the item's own reference (``judging.reference.REFERENCE``; the
judging package sits above datasets, so the name is repeated here rather than imported)."""

REFERENCE_NAMES = frozenset({"reference", "human_verified_reference", "reference_output"})
"""Model names (lower-cased, runs of non-alphanumerics as ``_``) that vote files use for the
item's human-verified reference; they, and any name ending in ``_reference`` (such as
``gpt4_reference``), become the :data:`REFERENCE` player. A caption-assisted reference
(``reference:<spec>``) is a model like any other and keeps its name."""

CROWD = "human:crowd"
"""Judge of a vote with no annotator id; numbered per pair by :func:`number_crowd`."""

SHOWN_UNMATCHED = 5
"""Unmatched row keys named in the summary (the rest are counted)."""


def player_name(model: str) -> str:
    """The player a vote file's model name stands for: the reference, or the name itself."""
    canonical = re.sub(r"[^a-z0-9]+", "_", model.strip().lower()).strip("_")
    if canonical in REFERENCE_NAMES or canonical.endswith("_reference"):
        return REFERENCE
    return model.strip()


class ItemIndex:
    """The stored items of a benchmark, looked up by (image file, instruction) or by key, over
    the importers' shared :class:`~lvlmbench.datasets.importers.lookup.ItemLookup`."""

    def __init__(self, store: Store, benchmark: str) -> None:
        self.benchmark = benchmark
        self.lookup = item_lookup(store, benchmark)
        self.items: dict[str, BenchmarkItem] = {item.id: item for item in self.lookup.items}
        self.ambiguous = 0
        """Rows joined to the first of several items with their image and instruction."""

    def by_image(self, url: str, instruction: str) -> list[str]:
        """Items whose image has the URL's file name and whose question is the instruction
        (whitespace and case aside), in import order; several when the dataset repeats a
        pair."""
        return [item.id for item in self.lookup.by_image_and_instruction(url, instruction)]

    def join(self, url: str, instruction: str, answers: dict[str, str | None]) -> str | None:
        """The item a VisIT-Bench row (image URL, instruction, ``{player: answer text}``) is
        about, or None. Where the dataset repeats the (image, instruction) pair, the item whose
        reference is the row's reference answer is taken, else the first imported one, and the
        row is counted in :attr:`ambiguous`."""
        candidates = self.by_image(url, instruction)
        if len(candidates) > 1:
            reference = _normalised(answers.get(REFERENCE) or "")
            same = [
                i for i in candidates if _normalised(self.items[i].reference or "") == reference
            ]
            if reference and len(same) == 1:
                return same[0]
            self.ambiguous += 1
        return candidates[0] if candidates else None

    def by_key(self, key: str) -> str | None:
        """The item whose row key (the imported file's id column), id or meta key is ``key``."""
        found = self.lookup.by_index(key)
        return found.id if found is not None else None


def _normalised(text: str) -> str:
    return " ".join(text.split()).lower()


def open_index(store: Store, path: Path, benchmark: str) -> ItemIndex:
    """The benchmark's item index; DatasetError when the benchmark was never imported."""
    if get_benchmark(store, benchmark) is None:
        raise DatasetError(
            path, f"no benchmark {benchmark!r} in the store: import its items first (--name)"
        )
    return ItemIndex(store, benchmark)


@dataclass(frozen=True)
class ParsedVote:
    """One validated vote (or one judged order of a battle), joined to its item."""

    item_id: str
    model_a: str
    """Player shown as A (already mapped to the reference player where it is one)."""
    model_b: str
    verdict: str | None
    """a, b or tie; None when the judge's output could not be read (status unparseable)."""
    judge: str
    protocol: str
    order: str = "ab"
    text_a: str | None = None
    text_b: str | None = None
    rationale: str | None = None
    reason: str | None = None
    sequence: int | None = None
    """Its place in the order the battles were fought (set by :func:`store_votes`)."""
    repeat: int = 0
    """The annotator's earlier votes on this pair in the file (set by :func:`number_crowd`)."""

    def judgment(self) -> Judgment:
        """The judgment row this vote is stored as."""
        return Judgment(
            item_id=self.item_id,
            judge=self.judge,
            protocol=self.protocol,
            model_a=self.model_a,
            model_b=self.model_b,
            verdict=self.verdict,
            order=self.order,
            status=Status.OK if self.verdict is not None else Status.UNPARSEABLE,
            reason=self.reason,
            rationale=self.rationale,
            sequence=self.sequence,
            repeat=self.repeat,
        )


def number_crowd(votes: Iterable[ParsedVote]) -> list[ParsedVote]:
    """Human votes that are unique per item, pair and order: an annotator's n-th vote on a pair
    keeps its judge and gets ``repeat`` n - 1 (one FastChat expert may vote on a pair twice:
    still one annotator), and anonymous crowd votes (:data:`CROWD`, different people) are
    numbered (``crowd-1`` to ``crowd-5`` on a pair with five votes), so no vote overwrites
    another and re-importing the same file yields the same rows."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for vote in votes:
        if vote.protocol != "human":
            out.append(vote)  # a model judge's verdict on a pair is one row: a repeat replaces it
            continue
        pair = tuple(sorted((vote.model_a, vote.model_b)))
        key = (vote.item_id, *pair, vote.protocol, vote.judge, vote.order)
        seen[key] = seen.get(key, 0) + 1
        if vote.judge == CROWD:
            vote = replace(vote, judge=f"{vote.judge}-{seen[key]}")
        elif seen[key] > 1:
            vote = replace(vote, repeat=seen[key] - 1)
        out.append(vote)
    return out


def kept_as_stored(store: Store, votes: list[ParsedVote]) -> list[ParsedVote]:
    """The votes, a repeat vote that the store already holds under the name imports before
    this version gave it (``expert_0-2``: the annotator's second vote on the pair, split off as
    another annotator) keeping that name, so re-importing a file into such a store stores no
    vote twice. A fresh import keeps every repeat under its annotator."""
    legacy = {
        index: replace(vote, judge=f"{vote.judge}-{vote.repeat + 1}", repeat=0)
        for index, vote in enumerate(votes)
        if vote.repeat
    }
    stored: set[str] = set()
    for judge in {vote.judge for vote in legacy.values()}:
        stored |= judgment_ids(store, judge, "human")
    if not stored:
        return votes
    return [
        legacy[i] if i in legacy and judgment_id(legacy[i].judgment()) in stored else vote
        for i, vote in enumerate(votes)
    ]


def _answers(store: Store, votes: list[ParsedVote]) -> tuple[list[Response], list[str]]:
    """Responses to add (answers that appear only in the vote file) and conflicts: a model
    whose stored (or earlier in the file) answer to an item differs from the file's text. The
    reference's text is the item's and is never stored as a response."""
    offered: dict[tuple[str, str], str] = {}
    conflicts: list[str] = []
    for vote in votes:
        for model, text in ((vote.model_a, vote.text_a), (vote.model_b, vote.text_b)):
            if model == REFERENCE or text is None or not text.strip():
                continue
            key = (vote.item_id, model)
            if key not in offered:
                offered[key] = text
            elif offered[key].strip() != text.strip():
                conflicts.append(f"{model} on item {vote.item_id} (two texts in the file)")
    if not offered:
        return [], conflicts
    stored: dict[tuple[str, str], str] = {}
    for model in {m for _, m in offered}:
        for response in iter_responses(store, model=model, variant="default"):
            if (response.item_id, model) in offered:
                stored[(response.item_id, model)] = response.text
    added = []
    for (item, model), text in offered.items():
        if (item, model) not in stored:
            added.append(Response(item_id=item, model=model, text=text))
        elif stored[(item, model)].strip() != text.strip():
            conflicts.append(f"{model} on item {item} (the store has a different answer)")
    return added, conflicts


def known_judgments(store: Store, judgments: list[Judgment]) -> tuple[set[str], int]:
    """Ids of ``judgments`` already stored, and the first free place in the order the battles
    were fought under their protocols (one past the highest stored ``sequence``)."""
    ids = {judgment_id(j) for j in judgments}
    known: set[str] = set()
    after = 0
    for protocol in {j.protocol for j in judgments}:
        for stored in iter_judgments(store, protocol=protocol):
            if stored.sequence is not None:
                after = max(after, stored.sequence + 1)
            if judgment_id(stored) in ids:
                known.add(judgment_id(stored))
    return known, after


def in_file_order(judgments: list[Judgment], after: int) -> list[Judgment]:
    """The judgments (in file order) numbered from ``after`` in the order fought: a file
    imported later comes after those imported before, and re-importing one puts its battles
    last again, in its own order."""
    return [j.model_copy(update={"sequence": after + n}) for n, j in enumerate(judgments)]


def store_votes(
    store: Store,
    summary: ImportSummary,
    votes: list[ParsedVote],
    unmatched: list[str],
) -> ImportSummary:
    """Write validated votes (in file order, which is kept as the order fought) and the
    answers they carry; fill in ``summary``. Nothing is written when no row matched an item
    (almost always the wrong ``--name``)."""
    if not votes and unmatched:
        raise DatasetError(
            Path(summary.source),
            f"none of the {len(unmatched)} rows matched an item of benchmark "
            f"{summary.benchmark!r} (first: {', '.join(unmatched[:SHOWN_UNMATCHED])}); import "
            "the dataset the votes refer to under that --name",
        )
    votes = kept_as_stored(store, number_crowd(votes))
    judgments = [v.judgment() for v in votes]
    ids = {judgment_id(j) for j in judgments}
    known, after = known_judgments(store, judgments)
    judgments = in_file_order(judgments, after)
    responses, conflicts = _answers(store, votes)
    put_judgments(store, judgments)
    put_responses(store, responses, replace=False)
    summary.votes = len(judgments)
    summary.votes_added = len(ids - known)
    summary.verdicts = sum(not j.judge.startswith("human:") for j in judgments)
    summary.responses_added = len(responses)
    summary.response_conflicts = conflicts
    summary.unmatched = len(unmatched)
    summary.unmatched_keys = unmatched[:SHOWN_UNMATCHED]
    summary.annotators = sorted({j.judge.removeprefix("human:") for j in judgments})
    return summary
