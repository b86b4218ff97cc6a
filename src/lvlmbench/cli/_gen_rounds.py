"""``generate --budget N`` and ``generate --until rank|compare:A,B --model A --model B``:
generation in rounds (:class:`lvlmbench.autobench.budgeted.RoundBuilder`), and with ``--until``
the examinees answering each round's new items through the same round loop as ``evaluate --until``
(:func:`._budgeted.decide_in_rounds`), until the question is answered, the budget is spent or
the plan is built. The budget then counts examiner and text-to-image requests plus one examinee
call per item and examinee run.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.autobench.budgeted import RoundBuilder
from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.autobench.rounds import STRATA
from lvlmbench.cli._budgeted import (
    Asked,
    Decided,
    check_round_options,
    decide_in_rounds,
    decision_json,
    make_rule,
    parse_until,
)
from lvlmbench.cli._common import BadInput, console, progress_bar
from lvlmbench.cli.evaluate import check_specs, run_models
from lvlmbench.models import metered, model_identity
from lvlmbench.runner import EvalSummary
from lvlmbench.store import Store

__all__ = ["Generated", "RoundOptions", "check_rounds", "generate_in_rounds", "print_rounds"]


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
    show_progress: bool


@dataclass
class Generated:
    """What a generation in rounds built, spent and (with --until) decided."""

    report: dict[str, Any]
    requests: int
    """Requests this run sent (examiner, text-to-image and examinees)."""
    decided: Decided | None = None
    question: str | None = None
    summaries: list[EvalSummary] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out = {**self.report["budget"], "requests": self.requests}
        if self.decided is not None:
            out |= {
                **decision_json(self.question, self.decided.decision),
                "items_used": len(self.decided.asked),
                "decision_rounds": self.decided.rounds,
            }
        return out


def check_rounds(
    budget: int | None,
    until: str | None,
    models: list[str],
    alpha: float,
    first_round: int,
) -> tuple[int, ...] | None:
    """BadInput (before the store is opened) for options a generation in rounds cannot use;
    the positions of the models ``--until`` decides on (None without it)."""
    if models and until is None:
        raise BadInput(
            "--model: examinees answer a generation only with --until rank or compare:A,B"
        )
    if budget is not None and budget < 1:
        raise BadInput(f"--budget {budget}: expected a whole number of calls, at least 1")
    if budget is None and until is None:
        return None
    check_round_options(alpha, first_round)
    if until is None:
        return ()
    decided = parse_until(until, models)
    check_specs(models)
    return decided


async def _rounds(
    builder: RoundBuilder, options: RoundOptions, label: str
) -> AsyncGenerator[Asked, None]:
    """The builder's rounds as the round loop's, with a progress bar over each round's units
    (one bar at a time: the examinees' bars follow it)."""
    built = builder.rounds_built(options.first_round)
    try:
        while True:
            with progress_bar(label, options.show_progress) as hook:
                builder.on_progress = hook
                step = await anext(built, None)
            if step is None:
                return
            yield Asked.known(step.items, step.remaining)
    finally:
        await built.aclose()


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
    async with opened_backend(store, settings, examiner, images, mode) as (backend, pictures):
        with metered() as meter:
            builder = await RoundBuilder.start(
                store, settings, backend, pictures, budget=options.budget, per_item=len(specs)
            )
            if options.until is None:
                async for _ in _rounds(builder, options, label):
                    pass
                return Generated(builder.report, meter.requests)

            async def run_round(ids: set[str]) -> list[EvalSummary]:
                return await run_models(
                    store,
                    settings.benchmark,
                    specs,
                    variant="default",
                    concurrency=options.concurrency,
                    show_progress=options.show_progress,
                    only=ids,
                )

            if not builder.order:
                raise BadInput(f"--until: the plan of {settings.benchmark!r} has no units")
            identities = [model_identity(specs[i]) for i in options.decided]
            question = "rank" if options.until == "rank" else "compare"
            decided = await decide_in_rounds(
                store,
                settings.benchmark,
                rule=make_rule(question, identities, options.alpha),
                rounds=_rounds(builder, options, label),
                run_round=run_round,
                variant="default",
            )
    return Generated(builder.report, meter.requests, decided, question, decided.summaries)


def print_rounds(run: Generated) -> None:
    """Units built against the plan, calls against the budget and the full plan, and with
    --until the decision."""
    b = run.report["budget"]
    if run.decided is not None:
        console.print(f"[bold]decision[/]: {run.decided.decision.text}")
        console.print(
            f"items asked: {len(run.decided.asked)} in {run.decided.rounds} round(s), "
            "each examinee answering each round's new items"
        )
    share = b["units_built"] / b["units_planned"] if b["units_planned"] else 1.0
    console.print(
        f"units built: {b['units_built']} of {b['units_planned']} planned ({share:.0%}) in "
        f"{b['rounds']} round(s), stratified over {' × '.join(STRATA)} (largest stratum share "
        f"gap {100 * b['strata_share_gap']:.1f} points)"
    )
    cap = f" of a budget of {b['budget']}" if b["budget"] is not None else ""
    spent = (
        f"calls: {b['calls']}{cap} ({b['generation_calls']} examiner and text-to-image, "
        f"{b['examinee_calls']} examinee)"
    )
    full = b["calls_full_estimate"]
    if full is not None:
        spent += (
            f"; the full plan would take about {full} (an estimate: "
            f"{b['calls_per_unit']:.2f} calls per unit built), about "
            f"{b['calls_saved_estimate']} saved"
        )
    console.print(
        f"{spent}; {run.requests} requests sent by this run (stored and cached work costs none)"
    )
