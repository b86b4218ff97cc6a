"""Stored pairwise rows grouped into pairs: an item's two players with both presentation
orders' rows (or one verdict combined over both), per epoch of the answers judged."""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.judging.pairwise import combine_orders
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.ratings import MAJORITY, CombineRule
from lvlmbench.store import Store, iter_items, iter_judgments
from lvlmbench.types import BOTH_ORDERS, Judgment, Status

__all__ = ["PairRecord", "fought_sequence", "pair_records"]


def fought_sequence(*rows: Judgment | None) -> int | None:
    """Where a pair's rows fall in the order the battles were fought (the earliest recorded
    of them), or None."""
    recorded = [r.sequence for r in rows if r is not None and r.sequence is not None]
    return min(recorded) if recorded else None


@dataclass(frozen=True)
class PairRecord:
    """One pair on one item with both orders' rows (sorted players: ``ab.model_a`` first),
    or the one row of a verdict the judge combined over both orders itself (``both``)."""

    item_id: str
    category: str | None
    ab: Judgment | None
    ba: Judgment | None
    both: Judgment | None = None
    """A verdict stored already combined (order :data:`BOTH_ORDERS`, FastChat's pair judge):
    the pair's result whatever the rule, used only where there are no per-order rows."""
    epoch: int = 0
    """Whose answers the rows judge: each player's epoch-``epoch`` sample."""

    @property
    def players(self) -> tuple[str, str]:
        row = self.ab or self.ba or self.both
        assert row is not None and row.model_b is not None
        return tuple(sorted((row.model_a, row.model_b)))  # type: ignore[return-value]

    def result(self, rule: CombineRule = MAJORITY) -> str | None:
        """'a' (the first sorted player wins under ``rule``), 'b', 'tie', or None (unscored)."""
        if self.both is not None and self.ab is None and self.ba is None:
            return _combined(self.both)
        return combine_orders(self.ab, self.ba, rule)


def _combined(row: Judgment) -> str | None:
    """A combined row's verdict in sorted-player terms ('a': the first sorted player wins)."""
    verdict = ParsedVerdict.of(row)
    if verdict.status is not Status.OK or verdict.verdict not in ("a", "b", "tie"):
        return None
    if verdict.verdict == "tie":
        return "tie"
    winner = row.model_a if verdict.verdict == "a" else row.model_b
    return "a" if winner == min(row.model_a, row.model_b or "") else "b"


def pair_records(
    store: Store, benchmark: str, judge: str, protocol: str, *, epochs: int | None = 1
) -> list[PairRecord]:
    """Every judged pair of ``benchmark`` by ``judge`` under ``protocol``: of epoch 0 (one
    record per item-pair, what a single run judged) unless ``epochs`` asks for the first K
    epochs' (a record per item-pair and epoch; None: every stored epoch)."""
    categories = {item.id: item.category for item in iter_items(store, benchmark)}
    grouped: dict[tuple[str, str, str, int], dict[str, Judgment]] = {}
    for j in iter_judgments(store, judge=judge, protocol=protocol):
        if j.item_id not in categories or j.model_b is None:
            continue
        if epochs is not None and j.epoch >= epochs:
            continue
        p1, p2 = sorted((j.model_a, j.model_b))
        grouped.setdefault((j.item_id, p1, p2, j.epoch), {})[j.order] = j
    return [
        PairRecord(
            item_id,
            categories[item_id],
            rows.get("ab"),
            rows.get("ba"),
            rows.get(BOTH_ORDERS),
            epoch,
        )
        for (item_id, _, _, epoch), rows in sorted(grouped.items())
    ]
