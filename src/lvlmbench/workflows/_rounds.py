"""``evaluate --until rank|compare:A,B [--budget N] [--alpha A]``: a budgeted evaluation.

The benchmark's keyed choice items are drawn in whole clusters (:func:`lvlmbench.stats.
cluster_keys`: an AutoBench-V fine aspect, a CircularEval group, an MME picture; an item alone
elsewhere) in one seeded stratified order of the clusters (by the capability × general aspect
× difficulty their items share, :func:`lvlmbench.budget.cluster_order`), and asked in rounds of
doubling size that end between clusters through the normal runner: each round asks the order's
first n items, so earlier rounds' answers are found stored (a killed run restarted pays for
nothing twice and, with the same seed, takes the same draws and reaches the same decision).
After each round the stopping rule reads the new clusters' scores from the store and decides,
with one paired value per cluster (:mod:`lvlmbench.budget.rules`), whether the question is
answered. ``--budget`` caps the examinee calls (items × examinees run × epochs), ``--budget-usd``
what their answers cost at the specs' ``price=IN,OUT`` (:mod:`lvlmbench.workflows._money`); the
first cap reached stops the rounds, and a cap ends a run at the last whole cluster it pays for.

Runs keep no state: the order is recomputed from the items and the seed. Unclustered, it is
the order earlier versions drew, item for item; a clustered benchmark's run begun by a version
that drew single items resumes on the cluster order, reusing (never re-paying) stored answers.

:func:`decide_in_rounds` is the one round loop: ``evaluate --until`` feeds it the stored items
round by round, ``generate --until`` (:mod:`._generate_rounds`) the items each round
generates.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Sequence
from contextlib import aclosing
from dataclasses import dataclass

from lvlmbench.budget import (
    ClusterOrder,
    CompareRule,
    Decision,
    RankRule,
    StoppingRule,
    cluster_order,
    facet_mix,
    round_ends,
)
from lvlmbench.choice.accuracy import facet_value, scored_answers
from lvlmbench.runner import EvalSummary
from lvlmbench.stats import cluster_keys
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem
from lvlmbench.workflows._budgeted_run import BudgetedRun, decision_json
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._money import Meter

__all__ = [
    "STRATA",
    "Asked",
    "BudgetedRun",
    "Decided",
    "check_round_options",
    "decide_in_rounds",
    "decision_json",
    "make_rule",
    "parse_until",
    "run_budgeted",
]

STRATA = ("capability", "general_aspect", "difficulty")
"""Facets the draws are stratified over (one stratum where items have none of them)."""

RunRound = Callable[[set[str]], Awaitable[list[EvalSummary]]]
"""Runs the examinees on the given item ids (cached and resumable) and returns their runs."""


@dataclass(frozen=True)
class Asked:
    """One round of a budgeted run: its new items in draw order, and how many more items the
    budget still affords after them (what the futility check projects over)."""

    items: list[BenchmarkItem]
    remaining: Callable[[], int]
    """Asked once, after the round has run: a money cap knows only then what the round cost."""
    clusters: list[list[BenchmarkItem]] | None = None
    """The clusters the round completes, whole (items of earlier rounds too), the rule's units;
    None: every new item is its own."""

    @classmethod
    def known(
        cls, items: list[BenchmarkItem], remaining: int, clusters: list[list[BenchmarkItem]]
    ) -> Asked:
        """A round whose remaining items are known before it runs (no money cap)."""
        return cls(items, lambda: remaining, clusters)


@dataclass(frozen=True)
class Decided:
    """Where the round loop stopped."""

    decision: Decision
    asked: list[str]
    """Item ids asked, in draw order."""
    rounds: int
    summaries: list[EvalSummary]
    """Each examinee's runs over all rounds, summed."""


def parse_until(until: str, models: Sequence[str]) -> tuple[int, ...]:
    """Positions in ``models`` (the ``--model`` values as typed) the question decides on:
    ``rank`` -> every model; ``compare:A,B`` (or ``compare`` with exactly two models) -> A's
    and B's. InvalidOptions otherwise."""
    question, _, named = until.partition(":")
    if question == "rank" and not named:
        if len(models) < 2:
            raise InvalidOptions("--until rank: give at least two --model to rank")
        return tuple(range(len(models)))
    if question != "compare":
        raise InvalidOptions(f"--until {until!r}: expected rank, or compare:A,B naming two --model")
    if not named and len(models) != 2:
        raise InvalidOptions("--until compare: give exactly two --model, or name them: compare:A,B")
    pair = [m.strip() for m in named.split(",", 1)] if named else list(models)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise InvalidOptions(f"--until {until!r}: compare needs two different models, compare:A,B")
    if any(m not in models for m in pair) or len(models) != 2:
        raise InvalidOptions(
            f"--until {until!r}: give exactly the compared models as --model "
            f"(got {', '.join(models)})"
        )
    return tuple(models.index(m) for m in pair)


def check_round_options(alpha: float, first_round: int) -> None:
    """InvalidOptions for an ``--alpha`` or ``--first-round`` no budgeted run can use."""
    if not 0 < alpha < 1:
        raise InvalidOptions(f"--alpha {alpha}: expected a number between 0 and 1")
    if first_round < 1:
        raise InvalidOptions(f"--first-round {first_round}: expected at least 1")


def _scores(
    store: Store,
    benchmark: str,
    variant: str,
    items: dict[str, BenchmarkItem],
    models: Sequence[str],
) -> dict[str, dict[str, float | None]]:
    """Per item of ``items``, each model's score (the mean over its scored answers, as in
    every accuracy table); None where it has none."""
    answers = scored_answers(store, benchmark, variant=variant, items=items.values())
    scored = {model: per_item for (model, _), per_item in answers.item_scores(models).items()}
    return {
        item_id: {
            m: score.mean if (score := scored.get(m, {}).get(item_id)) is not None else None
            for m in models
        }
        for item_id in items
    }


def _summed(rounds: list[list[EvalSummary]]) -> list[EvalSummary]:
    """Each examinee's runs over all rounds as one (items done in earlier rounds, skipped
    again in later ones, are counted once)."""
    return [EvalSummary.merged(runs) for runs in zip(*rounds, strict=True)]


def _pool(store: Store, benchmark: str, only: Collection[str] | None) -> dict[str, BenchmarkItem]:
    """The keyed choice items a full run would score (the ``--limit`` subset when given)."""
    pool = {
        item.id: item
        for item in iter_items(store, benchmark)
        if item.kind != "open" and item.answer is not None and (only is None or item.id in only)
    }
    if not pool:
        raise InvalidOptions(
            f"--until: benchmark {benchmark!r} has no keyed choice items to decide on "
            "(open items are judged, not scored: use the judge commands)"
        )
    return pool


def _affordable(pool: int, calls_per_item: int, budget: int | None) -> int:
    """Items the budget pays for (all of the pool without a budget)."""
    if budget is None or calls_per_item == 0:
        return pool
    if budget < calls_per_item:
        raise InvalidOptions(
            f"--budget {budget}: one item costs {calls_per_item} examinee calls "
            "(examinees run × epochs); give at least that"
        )
    return min(pool, budget // calls_per_item)


def make_rule(
    question: str, models: Sequence[str], alpha: float, order: ClusterOrder | None = None
) -> StoppingRule:
    """The rule for ``question`` (``rank``, or ``compare`` of ``models``' two), testing over
    ``order``'s clusters (None: every item its own)."""
    unit, largest = ("item", 1) if order is None else (order.unit, order.largest)
    if question == "compare":
        return CompareRule(models[0], models[1], alpha, unit=unit, largest=largest)
    return RankRule(models, alpha, unit=unit, largest=largest)


async def decide_in_rounds(
    store: Store,
    benchmark: str,
    *,
    rule: StoppingRule,
    rounds: AsyncGenerator[Asked, None],
    run_round: RunRound,
    variant: str,
) -> Decided:
    """The round loop: take each round's new items from ``rounds``, run the examinees on every
    item asked so far through ``run_round`` (those already answered are found stored), feed the
    stored scores of the clusters the round completes (its new items, each alone, where it
    names none) to ``rule`` and stop when it decides. ``rounds`` is asked for a round only once
    the previous one left the question open, so a decided run generates or asks nothing more.
    ValueError when ``rounds`` gives no round at all."""
    asked: list[str] = []
    runs: list[list[EvalSummary]] = []
    decision = None
    async with aclosing(rounds):
        async for new in rounds:
            asked += [item.id for item in new.items]
            runs.append(await run_round(set(asked)))
            groups = [[i] for i in new.items] if new.clusters is None else new.clusters
            tested = {i.id: i for group in groups for i in group}
            scores = _scores(store, benchmark, variant, tested, rule.models)
            rule.observe_clusters([[scores[i.id] for i in group] for group in groups])
            decision = rule.decide(new.remaining())
            if decision.done:
                break
    if decision is None:
        raise ValueError("no items to decide on")
    return Decided(decision, asked, len(runs), _summed(runs))


async def _stored_rounds(
    pool: dict[str, BenchmarkItem],
    order: ClusterOrder,
    ends: list[int],
    cap: int,
    money: Meter | None,
) -> AsyncGenerator[Asked, None]:
    """The order's items round by round: the doubling schedule's next end, or as far as the
    money cap lets the round go (sized only once the previous round's cost is known), each
    round whole clusters."""
    items = order.items
    used = 0
    while used < cap:
        end = next(e for e in ends if e > used)
        if money is None:
            yield Asked.known(
                [pool[i] for i in items[used:end]], cap - end, _split(order, items[used:end], pool)
            )
        else:
            end = order.whole(used + money.spend.next_round(end - used, used))
            if end <= used:
                # The probe (no cost known yet), or a cluster larger than every item used so
                # far that the money left was found to pay for: one whole cluster.
                end = next(e for e in order.ends if e > used)
            asked = items[used:end]
            costed = _costed(money, order, asked, end, cap)
            yield Asked([pool[i] for i in asked], costed, _split(order, asked, pool))
        used = end


def _split(
    order: ClusterOrder, ids: list[str], pool: dict[str, BenchmarkItem]
) -> list[list[BenchmarkItem]]:
    return [[pool[i] for i in cluster] for cluster in order.split(ids)]


def _costed(
    money: Meter, order: ClusterOrder, asked: list[str], end: int, cap: int
) -> Callable[[], int]:
    """Once the round has run: record what its answers cost, then the items of whole clusters
    the money left still affords (at most ``cap`` in all; 0 once the next cluster does not fit,
    which makes the decision final)."""

    def remaining() -> int:
        money.observe(asked)
        return order.whole(end + money.spend.items_affordable(cap - end)) - end

    return remaining


async def run_budgeted(
    store: Store,
    benchmark: str,
    *,
    models: Sequence[str],
    question: str,
    run_round: RunRound,
    calls_per_item: int,
    variant: str,
    alpha: float,
    budget: int | None,
    first_round: int,
    seed: int,
    only: Collection[str] | None = None,
    money: Meter | None = None,
) -> BudgetedRun:
    """Ask the stratified order's items in doubling rounds through ``run_round`` until the rule
    for ``question`` (``rank``, or ``compare`` of ``models``' two) stops; ``models`` are the
    stored identities the rule compares. With ``money``, each round's answers are costed and
    the rounds kept within its cap (a round sized to what the cap affords)."""
    check_round_options(alpha, first_round)
    pool = _pool(store, benchmark, only)
    strata = {i: tuple(facet_value(item, f) for f in STRATA) for i, item in pool.items()}
    unit, keys = cluster_keys(list(pool.values()))
    order = cluster_order(strata, dict(zip(pool, keys, strict=True)), seed, unit)
    cap = order.whole(_affordable(len(pool), calls_per_item, budget))
    if cap == 0:
        first = len(order.clusters[0])
        raise InvalidOptions(
            f"--budget {budget}: the first {unit} cluster drawn holds {first} items, "
            f"{first * calls_per_item} examinee calls; a budgeted run asks whole clusters, "
            "give at least that"
        )
    decided = await decide_in_rounds(
        store,
        benchmark,
        rule=make_rule(question, models, alpha, order),
        rounds=_stored_rounds(pool, order, order.snapped(round_ends(cap, first_round)), cap, money),
        run_round=run_round,
        variant=variant,
    )
    used = decided.asked
    full, early = facet_mix(order.items, strata), facet_mix(used, strata)
    gap = max(abs(full[s] - early.get(s, 0.0)) for s in full)
    return BudgetedRun(
        question,
        decided.decision,
        used,
        len(pool),
        calls_per_item,
        budget,
        decided.rounds,
        decided.summaries,
        gap,
        None if money is None else money.spend,
    )
