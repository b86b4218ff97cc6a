"""From stored pairwise judgments to ratings, win rates and judge diagnostics: the pairwise report.

Pure reads of the store plus :mod:`lvlmbench.ratings`. The two orders of a pair combine by
VisIT-Bench's released rule unless told otherwise (``combine="both"``), and every report says
which rule it used. Pairs whose two orders are not both ok are *unscored*: they enter no rating
and are counted in :class:`PairwiseReport`. Items where the reference player has no answer
(VisIT-Bench rows whose GPT-4 answer people did not verify) are counted and left out of the win
rate vs reference.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.judging.pairwise import PAIRWISE, combine_orders, model_family
from lvlmbench.judging.pairwise_json import PairwiseReportJSON
from lvlmbench.judging.protocol import HUMAN
from lvlmbench.judging.reference import REFERENCE, answer_texts, items_in
from lvlmbench.judging.style_control import StyleControl, style_control
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.ratings import (
    MAJORITY,
    BootstrapRatings,
    CombineRule,
    FoughtMatch,
    JudgeDiagnostics,
    OnlineElo,
    TwoOrderVerdict,
    WinRate,
    bradley_terry_bootstrap,
    category_win_rates,
    fought_order,
    judge_diagnostics,
    online_elo,
    win_rates_vs_reference,
)
from lvlmbench.store import Store, iter_items, iter_judgments, judges_under
from lvlmbench.types import BOTH_ORDERS, Judgment, Status

__all__ = [
    "HUMAN",
    "RATING_ROUNDS",
    "RATING_SEED",
    "PairRecord",
    "PairwiseReport",
    "judges_for",
    "pair_records",
    "pairwise_report",
    "rate_matches",
]

RATING_ROUNDS = 200
"""Bootstrap rounds of the Bradley-Terry intervals by default: `lvlmbench rate`'s, the report's
and the web app's, so the three show the same numbers."""
RATING_SEED = 0
"""Seed of those bootstraps (and of the shuffled orders of online Elo) by default."""
_SCORE = {"a": 1.0, "b": 0.0, "tie": 0.5}


def _sequence(*rows: Judgment | None) -> int | None:
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


def judges_for(store: Store, protocol: str) -> list[str]:
    """Judges that have rows under ``protocol`` (read from the column, no row is parsed)."""
    return judges_under(store, protocol)


def pair_records(store: Store, benchmark: str, judge: str, protocol: str) -> list[PairRecord]:
    """Every judged pair of ``benchmark`` by ``judge`` under ``protocol``."""
    categories = {item.id: item.category for item in iter_items(store, benchmark)}
    grouped: dict[tuple[str, str, str], dict[str, Judgment]] = {}
    for j in iter_judgments(store, judge=judge, protocol=protocol):
        if j.item_id not in categories or j.model_b is None:
            continue
        p1, p2 = sorted((j.model_a, j.model_b))
        grouped.setdefault((j.item_id, p1, p2), {})[j.order] = j
    return [
        PairRecord(
            item_id, categories[item_id], rows.get("ab"), rows.get("ba"), rows.get(BOTH_ORDERS)
        )
        for (item_id, _, _), rows in sorted(grouped.items())
    ]


@dataclass
class PairwiseReport:
    """Everything ``lvlmbench rate`` shows for one judge and protocol."""

    judge: str
    protocol: str
    combine: CombineRule = MAJORITY
    """How the two orders of a pair were combined (see :mod:`lvlmbench.ratings.combine`)."""
    reference: str = REFERENCE
    items: int = 0
    """Items of the benchmark."""
    items_without_reference: int = 0
    """Items where the reference player has no answer (VisIT-Bench: no human-verified
    reference): no match against the reference is counted on them."""
    pairs: int = 0
    unscored_pairs: int = 0
    combined_by_judge: int = 0
    """Pairs whose one row is the judge's own verdict over both orders (order ``both``: FastChat's
    GPT-4 pair judge, a tie where its orders disagree): ``combine`` did not apply to them."""
    statuses: dict[str, int] = field(default_factory=dict)
    """Rows by status (ok, unparseable, refused, error)."""
    online_elo: OnlineElo | None = None
    """Online Elo in the order the battles were fought and the mean over shuffled orders,
    each with its label (None: nothing rated)."""
    bradley_terry: BootstrapRatings | None = None
    bt_note: str | None = None
    win_rates: dict[str, WinRate] = field(default_factory=dict)
    category_win_rates: dict[str, dict[str, WinRate]] = field(default_factory=dict)
    diagnostics: JudgeDiagnostics | None = None
    warnings: list[str] = field(default_factory=list)
    style: StyleControl | None = None
    """Style-controlled Bradley-Terry (None when not asked for)."""

    def as_dict(self) -> PairwiseReportJSON:
        """The report as plain JSON-able values (for ``--json``)."""
        bt = self.bradley_terry
        diag = self.diagnostics
        return {
            "judge": self.judge,
            "protocol": self.protocol,
            "combine": self.combine,
            "reference": self.reference,
            "items": self.items,
            "items_without_reference": self.items_without_reference,
            "pairs": self.pairs,
            "unscored_pairs": self.unscored_pairs,
            "combined_by_judge": self.combined_by_judge,
            "statuses": self.statuses,
            "online_elo": None if self.online_elo is None else self.online_elo.as_dict(),
            "bradley_terry": None
            if bt is None
            else {
                p: {"rating": r, "low": bt.intervals[p].low, "high": bt.intervals[p].high}
                for p, r in bt.ratings.items()
            },
            "bt_note": self.bt_note,
            "win_rate_vs_reference": {
                m: {
                    "rate": w.rate,
                    "wins": w.wins,
                    "ties": w.ties,
                    "matches": w.matches,
                    "low": w.interval.low,
                    "high": w.interval.high,
                }
                for m, w in self.win_rates.items()
            },
            "category_win_rates": {
                c: {m: w.rate for m, w in rates.items()}
                for c, rates in self.category_win_rates.items()
            },
            "diagnostics": None
            if diag is None
            else {
                "position_flip_rate": diag.position.flip_rate,
                "first_position_win_rate": diag.first_position.rate,
                "longer_answer_win_rate": diag.longer_answer.rate,
                "self_preference_rate": None
                if diag.self_preference is None
                else diag.self_preference.rate,
            },
            "warnings": self.warnings,
            "style_control": None if self.style is None else self.style.as_dict(),
        }


def _records(pairs: list[PairRecord], texts: dict[str, dict[str, str]]) -> list[TwoOrderVerdict]:
    out = []
    for r in pairs:
        a, b = r.players
        answers = texts.get(r.item_id, {})
        out.append(
            TwoOrderVerdict(
                a,
                b,
                float(len(answers.get(a, "").split())),
                float(len(answers.get(b, "").split())),
                _upper(r.ab),
                _upper(r.ba),
            )
        )
    return out


def _upper(row: Judgment | None) -> Any:
    verdict = None if row is None else ParsedVerdict.of(row)
    if verdict is None or verdict.status is not Status.OK or verdict.verdict is None:
        return None
    return "tie" if verdict.verdict == "tie" else verdict.verdict.upper()


@dataclass
class _Tallied:
    matches: list[tuple[str, str, float, str]] = field(default_factory=list)
    """Every scored match with its category."""
    vs_reference: list[tuple[str, str, float, str]] = field(default_factory=list)
    """Those against the reference on items that have a reference answer."""
    fought: list[FoughtMatch] = field(default_factory=list)
    """Every scored match with its place in the order fought."""


def _tally(
    report: PairwiseReport, pairs: list[PairRecord], with_reference: set[str], items: list[str]
) -> _Tallied:
    """The scored matches under ``report.combine`` (``items``: the benchmark's item ids in
    order)."""
    out = _Tallied()
    position = {item: index for index, item in enumerate(items)}
    for r in pairs:
        for row in (r.ab, r.ba, r.both):
            if row is not None:
                report.statuses[row.status.value] = report.statuses.get(row.status.value, 0) + 1
        report.pairs += 1
        report.combined_by_judge += r.ab is None and r.ba is None and r.both is not None
        result = r.result(report.combine)
        if result is None:
            report.unscored_pairs += 1
            continue
        a, b = r.players
        match = (a, b, _SCORE[result], r.category or "(none)")
        out.matches.append(match)
        fought = _sequence(r.ab, r.ba, r.both)
        out.fought.append(FoughtMatch(fought, position[r.item_id], match[:3]))
        if report.reference in (a, b) and r.item_id in with_reference:
            out.vs_reference.append(match)
    return out


def rate_matches(
    report: PairwiseReport,
    by_category: list[tuple[str, str, float, str]],
    *,
    reference: str,
    rounds: int,
    seed: int,
    fought: list[FoughtMatch],
    vs_reference: list[tuple[str, str, float, str]] | None = None,
) -> bool:
    """Fill ``report``'s Elo, Bradley-Terry and win rates from matches (first player, second,
    outcome for the first, category); False (with a warning) when there are none. Online Elo
    is replayed in the order ``fought`` (the same matches with their places in the order the
    battles were fought) and averaged over shuffles of ``by_category``'s order. Win rates vs
    ``reference`` come from ``vs_reference`` when given (a model judge's pairs leave out items
    without a verified reference), else from every match against it."""
    matches = [(a, b, outcome) for a, b, outcome, _ in by_category]
    if not matches:
        report.warnings.append("no scored pairs: nothing to rate")
        return False
    in_order, order = fought_order(fought)
    report.online_elo = online_elo(in_order, order=order, shuffle_from=matches, seed=seed)
    try:
        report.bradley_terry = bradley_terry_bootstrap(matches, rounds=rounds, seed=seed)
    except ValueError:
        report.bradley_terry = bradley_terry_bootstrap(matches, rounds=rounds, seed=seed, l2=1.0)
        report.bt_note = "sparse data: Bradley-Terry fitted with l2=1.0 regularisation"
    against = (
        vs_reference if vs_reference is not None else [m for m in by_category if reference in m[:2]]
    )
    if against:
        report.win_rates = win_rates_vs_reference([m[:3] for m in against], reference)
        report.category_win_rates = category_win_rates(against, reference)
    return True


def pairwise_report(
    store: Store,
    benchmark: str,
    judge: str,
    *,
    protocol: str = PAIRWISE,
    reference: str = REFERENCE,
    combine: CombineRule = MAJORITY,
    rounds: int = RATING_ROUNDS,
    seed: int = RATING_SEED,
    style: bool = False,
    only: Collection[str] | None = None,
) -> PairwiseReport:
    """Online Elo (in the order fought and the mean of shuffled orders), Bradley-Terry with
    bootstrap CI, win rate vs ``reference``
    (overall and per category) and judge diagnostics from stored pairwise rows, the two
    orders of each pair combined by ``combine``. Items where ``reference`` has no answer (no
    verified reference) are counted in ``items_without_reference`` and excluded from the win
    rate vs reference. With ``style``, also the style-controlled Bradley-Terry. ``only``: over
    these items (a ``--limit`` subset's ids) alone."""
    report = PairwiseReport(judge=judge, protocol=protocol, combine=combine, reference=reference)
    items = items_in(store, benchmark, only)
    ids = {item.id for item in items}
    pairs = [r for r in pair_records(store, benchmark, judge, protocol) if r.item_id in ids]
    texts = answer_texts(store, items, [reference, *{p for r in pairs for p in r.players}])
    with_reference = {item_id for item_id, answers in texts.items() if reference in answers}
    report.items = len(items)
    report.items_without_reference = len(items) - len(with_reference)
    tallied = _tally(report, pairs, with_reference, [item.id for item in items])
    if not rate_matches(
        report,
        tallied.matches,
        reference=reference,
        rounds=rounds,
        seed=seed,
        fought=tallied.fought,
        vs_reference=tallied.vs_reference,
    ):
        return report
    if style:
        scored = [(r.item_id, *r.players, r.result(combine)) for r in pairs]
        matched = [(i, a, b, _SCORE[res]) for i, a, b, res in scored if res is not None]
        report.style = style_control(matched, texts, rounds=rounds, seed=seed)
    records = _records(pairs, texts)
    family = model_family(judge)
    if family is not None:
        report.diagnostics = judge_diagnostics(
            records, judge_family=family, family_of=lambda p: model_family(p) or f"?{p}"
        )
    else:
        report.diagnostics = judge_diagnostics(records)
    return report
