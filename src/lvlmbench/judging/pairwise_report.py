"""From stored pairwise judgments to ratings, win rates and judge diagnostics: the pairwise report.

Pure reads of the store plus :mod:`lvlmbench.ratings`. The two orders of a pair combine by
VisIT-Bench's released rule unless told otherwise (``combine="both"``), and every report says
which rule it used. Pairs whose two orders are not both ok are *unscored*: they enter no rating
and are counted in :class:`PairwiseReport`. Items where the reference player has no answer
(VisIT-Bench rows whose GPT-4 answer people did not verify) are counted and left out of the win
rate vs reference.

Epochs (``judge --epochs K``: each epoch's answers judged as their own pairs) are weighed so
that the item stays the unit: each epoch's combined verdict on an item-pair counts 1/K of that
item-pair, K its scored epochs, in the win rates (their Wilson intervals are over item-pairs,
not item-pairs × epochs), in Bradley–Terry (whose bootstrap draws as many matches as there are
item-pairs) and in online Elo (each verdict moves the ratings by k/K). The report says how many
epochs it holds (``epochs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.judging.pair_records import PairRecord, fought_sequence, pair_records
from lvlmbench.judging.pairwise import PAIRWISE, model_family
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
    in_fought_order,
    judge_diagnostics,
    online_elo,
    win_rates_vs_reference,
)
from lvlmbench.store import Store, judges_under
from lvlmbench.types import Judgment, Status

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


def judges_for(store: Store, protocol: str) -> list[str]:
    """Judges that have rows under ``protocol`` (read from the column, no row is parsed)."""
    return judges_under(store, protocol)


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
    epochs: int = 1
    """Epochs of answers judged (the most any item-pair has); above 1 every figure weighs
    each epoch's verdict 1/K of its item-pair (see the module's docstring), and ``pairs``
    counts item-pairs × epochs."""
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
            "epochs": self.epochs,
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


def _records(
    pairs: list[PairRecord], texts: dict[int, dict[str, dict[str, str]]]
) -> list[TwoOrderVerdict]:
    """The judge-diagnostics records, each with its epoch's answers' lengths."""
    out = []
    for r in pairs:
        a, b = r.players
        answers = texts[r.epoch].get(r.item_id, {})
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
    weights: list[float] | None = None
    """Each match's share of its item-pair (1/K of K scored epochs; None: one epoch, 1 each)."""
    vs_reference_weights: list[float] | None = None


def _tally(
    report: PairwiseReport, pairs: list[PairRecord], with_reference: set[str], items: list[str]
) -> _Tallied:
    """The scored matches under ``report.combine`` (``items``: the benchmark's item ids in
    order), each epoch's weighed 1/K of its item-pair's K scored epochs when there are
    several."""
    out = _Tallied()
    position = {item: index for index, item in enumerate(items)}
    scored = Counter((r.item_id, *r.players) for r in pairs if r.result(report.combine) is not None)
    weights: list[float] = []
    vs_reference_weights: list[float] = []
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
        weight = 1.0 / scored[(r.item_id, a, b)]
        match = (a, b, _SCORE[result], r.category or "(none)")
        out.matches.append(match)
        weights.append(weight)
        fought = fought_sequence(r.ab, r.ba, r.both)
        out.fought.append(FoughtMatch(fought, position[r.item_id], match[:3], weight))
        if report.reference in (a, b) and r.item_id in with_reference:
            out.vs_reference.append(match)
            vs_reference_weights.append(weight)
    if report.epochs > 1:  # one epoch: every weight is 1, and the figures are as they were
        out.weights, out.vs_reference_weights = weights, vs_reference_weights
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
    weights: list[float] | None = None,
    vs_reference_weights: list[float] | None = None,
) -> bool:
    """Fill ``report``'s Elo, Bradley-Terry and win rates from matches (first player, second,
    outcome for the first, category); False (with a warning) when there are none. Online Elo
    is replayed in the order ``fought`` (the same matches with their places in the order the
    battles were fought) and averaged over shuffles of ``by_category``'s order. Win rates vs
    ``reference`` come from ``vs_reference`` when given (a model judge's pairs leave out items
    without a verified reference), else from every match against it. ``weights`` (and
    ``vs_reference_weights``, one per match of ``vs_reference``): each match's share of its
    item-pair, where epochs make several matches of one (None: 1 each)."""
    matches = [(a, b, outcome) for a, b, outcome, _ in by_category]
    if not matches:
        report.warnings.append("no scored pairs: nothing to rate")
        return False
    in_order, order = fought_order(fought)
    in_order_weights = None if weights is None else [m.weight for m in in_fought_order(fought)]
    report.online_elo = online_elo(
        in_order,
        order=order,
        shuffle_from=matches,
        seed=seed,
        weights=in_order_weights,
        shuffle_weights=weights,
    )
    try:
        report.bradley_terry = bradley_terry_bootstrap(
            matches, rounds=rounds, seed=seed, weights=weights
        )
    except ValueError:
        report.bradley_terry = bradley_terry_bootstrap(
            matches, rounds=rounds, seed=seed, l2=1.0, weights=weights
        )
        report.bt_note = "sparse data: Bradley-Terry fitted with l2=1.0 regularisation"
    if vs_reference is None:
        chosen = [m for m in by_category if reference in m[:2]]
        chosen_weights = (
            None
            if weights is None
            else [w for m, w in zip(by_category, weights, strict=True) if reference in m[:2]]
        )
    else:
        chosen, chosen_weights = vs_reference, vs_reference_weights
    if chosen:
        report.win_rates = win_rates_vs_reference(
            [m[:3] for m in chosen], reference, weights=chosen_weights
        )
        report.category_win_rates = category_win_rates(chosen, reference, weights=chosen_weights)
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
    epochs: int | None = None,
) -> PairwiseReport:
    """Online Elo (in the order fought and the mean of shuffled orders), Bradley-Terry with
    bootstrap CI, win rate vs ``reference``
    (overall and per category) and judge diagnostics from stored pairwise rows, the two
    orders of each pair combined by ``combine``. Items where ``reference`` has no answer (no
    verified reference) are counted in ``items_without_reference`` and excluded from the win
    rate vs reference. With ``style``, also the style-controlled Bradley-Terry. ``only``: over
    these items (a ``--limit`` subset's ids) alone. ``epochs``: over the first K epochs'
    judgments (``judge --epochs K``), each weighed 1/K of its item-pair (see the module's
    docstring); None: every epoch stored."""
    report = PairwiseReport(judge=judge, protocol=protocol, combine=combine, reference=reference)
    items = items_in(store, benchmark, only)
    ids = {item.id for item in items}
    stored = pair_records(store, benchmark, judge, protocol, epochs=epochs)
    pairs = [r for r in stored if r.item_id in ids]
    report.epochs = 1 + max((r.epoch for r in pairs), default=0)
    players = [reference, *{p for r in pairs for p in r.players}]
    texts = {e: answer_texts(store, items, players, e) for e in range(report.epochs)}
    with_reference = {item_id for item_id, answers in texts[0].items() if reference in answers}
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
        weights=tallied.weights,
        vs_reference_weights=tallied.vs_reference_weights,
    ):
        return report
    if style:
        _style(report, pairs, texts[0], rounds, seed)
    records = _records(pairs, texts)
    family = model_family(judge)
    if family is not None:
        report.diagnostics = judge_diagnostics(
            records, judge_family=family, family_of=lambda p: model_family(p) or f"?{p}"
        )
    else:
        report.diagnostics = judge_diagnostics(records)
    return report


def _style(
    report: PairwiseReport,
    pairs: list[PairRecord],
    texts: dict[str, dict[str, str]],
    rounds: int,
    seed: int,
) -> None:
    """The style-controlled Bradley-Terry: style features are of one answer per item and
    player, epoch 0's (``texts``), so it is fitted on epoch 0's verdicts, and says so where
    there were more."""
    scored = [(r.item_id, *r.players, r.result(report.combine)) for r in pairs if r.epoch == 0]
    matched = [(i, a, b, _SCORE[res]) for i, a, b, res in scored if res is not None]
    report.style = style_control(matched, texts, rounds=rounds, seed=seed)
    if report.epochs > 1:
        report.warnings.append("style control is fitted on epoch 0's verdicts alone")
