"""``generate --budget N`` and ``generate --until rank|compare:A,B --model A --model B``:
generation in rounds (:class:`lvlmbench.autobench.budgeted.RoundBuilder`), and with ``--until``
the examinees answering each round's new items through the same round loop as ``evaluate --until``
(:func:`._rounds.decide_in_rounds`), until the question is answered, the budget is spent or
the plan is built. With ``--until`` the rounds build whole fine aspects, each tested once all
its units are built (one value per cluster, as ``evaluate --until`` tests). The budget then
counts examiner and text-to-image requests plus one examinee call per item and examinee run;
``--budget-usd`` what they cost at the specs' prices (:mod:`._generation_money`), the
examinees' answers costed from the store as ``evaluate`` costs them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.autobench import ExaminerBackend
from lvlmbench.autobench.budgeted import RoundBuilder
from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.autobench.unit_costs import GenerationMoney, GenerationPrices
from lvlmbench.budget import StoppingRule
from lvlmbench.images import ImageClient
from lvlmbench.models import ModelClient, metered, model_identity, model_price, spec_label
from lvlmbench.runner import EvalSummary, ProgressHook, run_examinees
from lvlmbench.store import GenerationReport, Store
from lvlmbench.types import BenchmarkItem
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._examinees import check_specs
from lvlmbench.workflows._money import Meter, check_budget_usd
from lvlmbench.workflows._rounds import (
    Asked,
    Decided,
    check_round_options,
    decide_in_rounds,
    decision_json,
    make_rule,
    parse_until,
)

__all__ = [
    "GenerateBars",
    "Generated",
    "RoundOptions",
    "bar_for",
    "check_rounds",
    "generate_in_rounds",
]

GenerateBars = Callable[[str, ModelClient | None], AbstractContextManager[ProgressHook | None]]
"""A progress display: (label, the model client or None) -> a context giving a ``(done,
total)`` hook (the CLI's bars; None hook: nothing shown)."""


def bar_for(bars: GenerateBars | None, label: str, client: ModelClient | None = None) -> Any:
    """``bars``' context for ``label``, or one giving no hook."""
    return nullcontext(None) if bars is None else bars(label, client)


@dataclass(frozen=True)
class RoundOptions:
    """The options of a generation in rounds."""

    budget: int | None
    until: str | None
    models: list[str]
    decided: tuple[int, ...]
    """Positions in ``models`` the question decides on."""
    alpha: float
    first_round: int
    concurrency: int
    bars: GenerateBars | None
    budget_usd: float | None = None
    prices: GenerationPrices | None = None
    """What the generation's work costs (None: not priced, no money reported)."""
    warnings: tuple[str, ...] = ()
    """Stored in the generation report (an examinee that is the examiner)."""


@dataclass
class Generated:
    """What a generation in rounds built, spent and (with --until) decided."""

    report: GenerationReport
    """The generation report stored with the benchmark (its ``budget`` section filled)."""
    requests: int
    """Requests this run sent (examiner, text-to-image and examinees)."""
    decided: Decided | None = None
    question: str | None = None
    summaries: list[EvalSummary] = field(default_factory=list)
    paid_generation_usd: float = 0.0
    """What the examiner and text-to-image requests this run sent cost."""

    @property
    def paid_examinees_usd(self) -> float:
        return sum(s.cost_usd or 0.0 for s in self.summaries)

    @property
    def paid_usd(self) -> float:
        """What this run's requests cost (stored and cached work costs nothing)."""
        return self.paid_generation_usd + self.paid_examinees_usd

    def as_json(self) -> dict[str, Any]:
        budget = self.report.budget
        out: dict[str, Any] = {
            **(budget.as_json() if budget is not None else {}),
            "requests": self.requests,
        }
        if out["money"] is not None:
            out["money"] = {
                **out["money"],
                "paid_usd": self.paid_usd,
                "paid_generation_usd": self.paid_generation_usd,
                "paid_examinees_usd": self.paid_examinees_usd,
            }
        if self.decided is not None:
            out |= {
                **decision_json(self.question, self.decided.decision),
                "items_used": len(self.decided.asked),
                "decision_rounds": self.decided.rounds,
            }
        return out


def check_rounds(
    budgets: tuple[int | None, float | None],
    until: str | None,
    models: list[str],
    alpha: float,
    first_round: int,
) -> tuple[int, ...] | None:
    """InvalidOptions (before the store is opened) for options a generation in rounds cannot use;
    the positions of the models ``--until`` decides on (None without it, or a run not in
    rounds). ``budgets``: ``--budget`` (calls) and ``--budget-usd``."""
    budget, budget_usd = budgets
    if models and until is None:
        raise InvalidOptions(
            "--model: examinees answer a generation only with --until rank or compare:A,B"
        )
    if budget is not None and budget < 1:
        raise InvalidOptions(f"--budget {budget}: expected a whole number of calls, at least 1")
    check_budget_usd(budget_usd)
    if budget is None and until is None and budget_usd is None:
        return None
    check_round_options(alpha, first_round)
    if until is None:
        return ()
    decided = parse_until(until, models)
    check_specs(models)
    return decided


def _remaining(
    builder: RoundBuilder, items: list[BenchmarkItem], answers: Meter | None
) -> Callable[[], int]:
    """Once the examinees have answered ``items``: cost their answers (a money cap learns only
    then what the round cost), then the items the budgets still afford."""

    def remaining() -> int:
        if answers is not None:
            answers.observe([item.id for item in items])
        return builder.remaining_items()

    return remaining


async def _rounds(
    builder: RoundBuilder, options: RoundOptions, label: str, answers: Meter | None = None
) -> AsyncGenerator[Asked, None]:
    """The builder's rounds as the round loop's, with a progress bar over each round's units
    (one bar at a time: the examinees' bars follow it); ``answers`` costs each round's answers
    into the builder's money."""
    built = builder.rounds_built(options.first_round)
    try:
        while True:
            with bar_for(options.bars, label) as hook:
                builder.on_progress = hook
                step = await anext(built, None)
            if step is None:
                return
            whole = builder.whole  # whole fine aspects only: the decision tests clusters
            clusters = None if whole is None else whole.take(builder.built, step.items)
            yield Asked(step.items, _remaining(builder, step.items, answers), clusters)
    finally:
        await built.aclose()


def _money(options: RoundOptions) -> GenerationMoney | None:
    if options.prices is None:
        return None
    examinees = [model_identity(spec) for spec in options.models]
    return GenerationMoney.create(options.prices, examinees, options.budget_usd)


def _answers(store: Store, benchmark: str, specs: list[str], money: GenerationMoney) -> Meter:
    """What costs the examinees' stored answers into ``money`` (every spec is priced: a
    generation with money has prices for all)."""
    prices = {}
    for spec in specs:
        price = model_price(spec)
        assert price is not None
        prices[model_identity(spec)] = price
    return Meter(store, benchmark, "default", prices, money.spend)


async def _start(
    store: Store,
    settings: GenerateSettings,
    opened: tuple[ExaminerBackend, ImageClient],
    options: RoundOptions,
    money: GenerationMoney | None,
) -> RoundBuilder:
    """The round builder, its plan made (or read), the run's warnings given to its reports."""
    backend, pictures = opened
    builder = await RoundBuilder.start(
        store,
        settings,
        backend,
        pictures,
        budget=options.budget,
        per_item=len(options.models),
        money=money,
        by_cluster=options.until is not None,
    )
    builder.warnings = options.warnings
    return builder


async def generate_in_rounds(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    options: RoundOptions,
) -> Generated:
    """Generate in rounds within ``options.budget``; with ``--until``, run the examinees on
    each round's items and stop when the rule decides."""
    from lvlmbench.autobench.backends import opened_backend

    specs = options.models
    label = f"generate {settings.benchmark}"
    money = _money(options)
    async with opened_backend(store, settings, examiner, images, mode) as (backend, pictures):
        with metered() as meter:
            builder = await _start(store, settings, (backend, pictures), options, money)
            if options.until is None:
                async for _ in _rounds(builder, options, label):
                    pass
                return Generated(builder.report, meter.requests, paid_generation_usd=_paid(money))

            async def run_round(ids: set[str]) -> list[EvalSummary]:
                return await run_examinees(
                    store,
                    settings.benchmark,
                    specs,
                    variant="default",
                    concurrency=options.concurrency,
                    only=ids,
                    progress=lambda spec, client: bar_for(
                        options.bars, f"{spec_label(spec)} [default]", client
                    ),
                )

            if not builder.order:
                raise InvalidOptions(f"--until: the plan of {settings.benchmark!r} has no units")
            question, rule = _rule(builder, options)
            answers = None if money is None else _answers(store, settings.benchmark, specs, money)
            decided = await decide_in_rounds(
                store,
                settings.benchmark,
                rule=rule,
                rounds=_rounds(builder, options, label, answers),
                run_round=run_round,
                variant="default",
            )
            builder.settle()
    summaries = decided.summaries
    return Generated(builder.report, meter.requests, decided, question, summaries, _paid(money))


def _rule(builder: RoundBuilder, options: RoundOptions) -> tuple[str, StoppingRule]:
    """The question ``--until`` asks and its rule, testing over the builder's fine aspects."""
    identities = [model_identity(options.models[i]) for i in options.decided]
    question = "rank" if options.until == "rank" else "compare"
    clusters = None if builder.whole is None else builder.whole.order
    return question, make_rule(question, identities, options.alpha, clusters)


def _paid(money: GenerationMoney | None) -> float:
    return 0.0 if money is None else money.paid_usd
