"""Read-side queries of the web app: benchmark listings, filtered item pages and item details.

Everything is read from the store on each request (a few thousand items parse in tens of
milliseconds), so a vote, a submission or a CLI run elsewhere shows up on the next page load.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from lvlmbench.choice.accuracy import item_facets
from lvlmbench.judging import pairwise_protocols
from lvlmbench.judging.pairwise_report import judges_for, pair_records
from lvlmbench.store import (
    Store,
    benchmark_models,
    count_items,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    iter_responses,
    list_benchmarks,
)
from lvlmbench.store import find_item as find_stored_item
from lvlmbench.types import BenchmarkItem, Judgment, Response, Status

__all__ = [
    "OUTCOMES",
    "PAGE_SIZE",
    "SCORED_WRONG",
    "VERDICTS",
    "BenchmarkListing",
    "ItemFilter",
    "ItemPage",
    "ItemRow",
    "benchmark_listing",
    "filter_items",
    "filtered_ids",
    "find_item",
    "item_judgments",
    "item_responses",
    "models_of",
    "outcome",
]

PAGE_SIZE = 50
OUTCOMES = ("right", "wrong", "unparseable", "refused", "error", "missing")
"""How a model's answer to a choice item came out (``missing``: it never answered)."""
VERDICTS = ("win", "loss", "tie", "unscored")
"""How a model fared on an item under the pairwise judges (both orders combined)."""


@dataclass
class BenchmarkListing:
    """One benchmark on the front page."""

    name: str
    kind: str
    items: int
    models: list[str]
    copies: list[str] = field(default_factory=list)
    """Its position-bias copies (``<name>@keys-A`` ...): their figures are on its page."""


def benchmark_listing(store: Store) -> list[BenchmarkListing]:
    """Every benchmark with its item count and the models that answered it; experiment copies
    are listed under their source instead of as benchmarks of their own."""
    listing: dict[str, BenchmarkListing] = {}
    copies: list[str] = []
    for bench in list_benchmarks(store):
        name = bench.name
        if "@keys-" in name:
            copies.append(name)
            continue
        items = count_items(store, name)
        listing[name] = BenchmarkListing(name, bench.kind, items, models_of(store, name))
    for copy in copies:
        source = listing.get(copy.partition("@keys-")[0])
        if source is None:  # the source was deleted: show the copy on its own
            listing[copy] = BenchmarkListing(
                copy, "copy", count_items(store, copy), models_of(store, copy)
            )
        else:
            source.copies.append(copy)
    return sorted(listing.values(), key=lambda b: b.name)


def models_of(store: Store, benchmark: str) -> list[str]:
    """Models with default-variant responses on the benchmark's items (one SQL query: the
    front page lists every benchmark, and parsing every response for it took seconds)."""
    return benchmark_models(store, benchmark, "default")


def outcome(item: BenchmarkItem, response: Response | None) -> str | None:
    """right/wrong/unparseable/refused/error/missing for choice items; None for open ones.

    The same rule as the accuracy tables: only an ok answer equal to the key is right.
    """
    if item.kind == "open" or item.answer is None:
        return None
    if response is None:
        return "missing"
    if response.status is Status.OK:
        said = (response.extracted or "").strip().lower()
        return "right" if said == item.answer.strip().lower() else "wrong"
    return response.status.value


@dataclass(frozen=True)
class ItemFilter:
    """Filters of the item browser; empty strings mean "any"."""

    model: str = ""
    capability: str = ""
    aspect: str = ""
    difficulty: str = ""
    outcome: str = ""
    verdict: str = ""
    page: int = 1
    search: str = ""
    """Words every shown item contains (question, options, key, reference, id or the chosen
    model's answer), case-insensitive."""
    right: str = ""
    """A model that answered the item right (with ``wrong``: "A right, B wrong")."""
    wrong: str = ""
    """A model whose scored answer is not right (wrong, unparseable or refused)."""

    def is_set(self) -> bool:
        """Whether any filter (the page aside) narrows the items."""
        return any(value for name, value in asdict(self).items() if name != "page")

    def matches_facets(self, facets: dict[str, str]) -> bool:
        wanted = (
            ("capability", self.capability),
            ("fine_aspect", self.aspect),
            ("difficulty", self.difficulty),
        )
        return all(not value or facets[key] == value for key, value in wanted)


@dataclass(frozen=True)
class ItemRow:
    """One row of the item browser."""

    item: BenchmarkItem
    facets: dict[str, str]
    response: Response | None
    outcome: str | None
    verdict: str | None


@dataclass
class ItemPage:
    """A page of filtered items plus what the filter menus offer."""

    rows: list[ItemRow]
    total: int
    pages: int
    models: list[str]
    facet_values: dict[str, list[str]] = field(default_factory=dict)
    has_verdicts: bool = False


def _model_verdicts(store: Store, benchmark: str, model: str) -> dict[str, str]:
    """item id → win/loss/tie/unscored for ``model`` over every pairwise judge (not people).

    Against several opponents an item is a win only if the model won every scored pair, a loss
    if it lost every one, a tie otherwise.
    """
    results: dict[str, set[str]] = defaultdict(set)
    for protocol in pairwise_protocols():
        for judge in judges_for(store, protocol):
            for record in pair_records(store, benchmark, judge, protocol):
                players = record.players
                if model not in players:
                    continue
                result = record.result()
                if result is None:
                    results[record.item_id].add("unscored")
                elif result == "tie":
                    results[record.item_id].add("tie")
                else:
                    won = players[0 if result == "a" else 1] == model
                    results[record.item_id].add("win" if won else "loss")
    combined = {}
    for item_id, seen in results.items():
        scored = seen - {"unscored"}
        combined[item_id] = (
            "unscored" if not scored else scored.pop() if len(scored) == 1 else "tie"
        )
    return combined


def _facet_values(facets: Iterable[dict[str, str]]) -> dict[str, list[str]]:
    values: dict[str, set[str]] = defaultdict(set)
    for facet in facets:
        for key in ("capability", "fine_aspect", "difficulty"):
            if facet[key] != "-":
                values[key].add(facet[key])
    return {key: sorted(found) for key, found in values.items()}


SCORED_WRONG = ("wrong", "unparseable", "refused")
"""Outcomes the accuracy tables count as not right (errors and missing answers are unscored)."""


def _answers(store: Store, benchmark: str, model: str) -> dict[str, Response]:
    """item id → ``model``'s default-variant response (empty for no model)."""
    if not model:
        return {}
    found = iter_benchmark_responses(store, benchmark, model=model, variant="default")
    return {response.item_id: response for response in found}


def _searchable(item: BenchmarkItem, answer: Response | None) -> str:
    texts = [item.id, item.question, *item.options.values(), item.answer or ""]
    texts += [item.reference or "", answer.text if answer is not None else ""]
    return "\n".join(texts).lower()


def _compared(
    item: BenchmarkItem, wanted: ItemFilter, right: Response | None, wrong: Response | None
) -> bool:
    """Whether the item passes the "A right, B wrong" filter (each side optional)."""
    if wanted.right and outcome(item, right) != "right":
        return False
    return not wanted.wrong or outcome(item, wrong) in SCORED_WRONG


def _matching(
    store: Store,
    benchmark: str,
    wanted: ItemFilter,
    items: list[BenchmarkItem],
    facets: dict[str, dict[str, str]],
) -> tuple[list[ItemRow], bool]:
    """Every item that passes ``wanted`` (all pages) and whether any verdict exists."""
    responses = _answers(store, benchmark, wanted.model)
    rights = _answers(store, benchmark, wanted.right)
    wrongs = _answers(store, benchmark, wanted.wrong)
    verdicts = _model_verdicts(store, benchmark, wanted.model) if wanted.model else {}
    words = wanted.search.lower().split()
    rows = []
    for item in items:
        if not wanted.matches_facets(facets[item.id]):
            continue
        answer = responses.get(item.id)
        result = outcome(item, answer) if wanted.model else None
        verdict = verdicts.get(item.id)
        if wanted.outcome and result != wanted.outcome:
            continue
        if wanted.verdict and verdict != wanted.verdict:
            continue
        if not _compared(item, wanted, rights.get(item.id), wrongs.get(item.id)):
            continue
        if words and not all(w in _searchable(item, answer) for w in words):
            continue
        rows.append(ItemRow(item, facets[item.id], answer, result, verdict))
    return rows, bool(verdicts)


def filtered_ids(store: Store, benchmark: str, wanted: ItemFilter) -> list[str]:
    """The ids of every item that passes ``wanted``, in benchmark order (all pages)."""
    items = list(iter_items(store, benchmark))
    facets = {item.id: item_facets(item) for item in items}
    return [row.item.id for row in _matching(store, benchmark, wanted, items, facets)[0]]


def filter_items(store: Store, benchmark: str, wanted: ItemFilter) -> ItemPage:
    """The page ``wanted.page`` of the benchmark's items that pass every filter."""
    items = list(iter_items(store, benchmark))
    facets = {item.id: item_facets(item) for item in items}
    rows, has_verdicts = _matching(store, benchmark, wanted, items, facets)
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    page = min(max(1, wanted.page), pages)
    return ItemPage(
        rows=rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        total=len(rows),
        pages=pages,
        models=models_of(store, benchmark),
        facet_values=_facet_values(facets.values()),
        has_verdicts=has_verdicts,
    )


def find_item(store: Store, benchmark: str, item_id: str) -> BenchmarkItem | None:
    """The item with this id if it belongs to ``benchmark``."""
    return find_stored_item(store, benchmark, item_id)


def item_responses(store: Store, item_id: str) -> list[Response]:
    """Every response to the item (all variants), by model then variant."""
    found = iter_responses(store, item_id=item_id)
    return sorted(found, key=lambda r: (r.variant != "default", r.model, r.variant))


def item_judgments(store: Store, item_id: str) -> list[Judgment]:
    """Every judgment on the item (judges, metrics and people), grouped by protocol."""
    found = iter_judgments(store, item_id=item_id)
    return sorted(found, key=lambda j: (j.protocol, j.judge, j.model_a, j.model_b or "", j.order))
