"""`lvlmbench generate CAPABILITY`: build an AutoBench-V benchmark on demand. The use case is
:func:`lvlmbench.workflows.generate`; this module parses, calls it and prints."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.autobench.rounds import STRATA
from lvlmbench.cli._common import (
    EXIT_FAILURES,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    outcomes_text,
    paid_text,
    print_json,
    print_warnings,
    progress_bar,
)
from lvlmbench.models import ModelClient
from lvlmbench.runner import ProgressHook
from lvlmbench.store import GenerationReport, Store
from lvlmbench.workflows import (
    Generated,
    GenerateOptions,
    GenerateResult,
    generate_several,
    money_text,
    plan_several,
)

__all__ = ["generate", "print_report", "run_generation"]


async def run_generation(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    show_progress: bool,
) -> GenerationReport:
    """Run the pipeline for the specs (:func:`lvlmbench.autobench.backends.generate_with`)
    with a progress bar."""
    from lvlmbench.autobench.backends import generate_with

    with progress_bar(f"generate {settings.benchmark}", show_progress) as hook:
        return await generate_with(store, settings, examiner, images, mode, hook)


def print_report(report: GenerationReport, name: str) -> None:
    """A short human summary of a generation report."""
    check: dict[str, Any] = report.self_check or {}  # the stored figures, as JSON
    table = Table(title=f"benchmark {name}", show_header=False, title_justify="left")
    table.add_row("examiner", report.examiner)
    note = report.plan.note if report.plan else None
    if note:  # a free-text capability composed from built-in aspects: said, never hidden
        table.add_row("[yellow]capability[/]", escape(note))
    # A generation in rounds may stop early: its units are those built, not all planned.
    units = "built" if report.budget is not None else "planned"
    table.add_row(
        "items", f"{report.items} of {check['units']} {units} ({check['dropped']} dropped)"
    )
    table.add_row(
        "self-check",
        f"{check['rejected_renders']} of {check['renders']} renders "
        f"rejected ({100 * check['rejection_rate']:.1f}%), "
        f"{100 * check['regeneration_rate']:.1f}% of units regenerated, "
        f"{check['accepted_with_errors']} accepted with errors",
    )
    keys = report.key_check
    if keys:  # reports stored before the key check's own figures have none
        table.add_row(
            "key check",
            f"{keys['verified']} verified, {keys['mismatched']} mismatched "
            f"({keys['units_dropped']} units dropped), {keys['not_checkable']} not checkable; "
            f"{keys['reasks']} re-asks ({keys['fixed_by_reask']} fixed)",
        )
    table.add_row(
        "answer letters", ", ".join(f"{k}: {v}" for k, v in (report.answer_letters or {}).items())
    )
    letters, truths = report.answer_letters_by_level or {}, report.truth_by_level or {}
    for level in sorted(letters.keys() | truths.keys()):
        parts = [" ".join(f"{k}{v}" for k, v in letters.get(level, {}).items())]
        if level in truths:
            parts.append(f"true {truths[level]['true']}, false {truths[level]['false']}")
        table.add_row(f"  {level}", "; ".join(p for p in parts if p))
    if report.diversity:
        table.add_row(
            "diversity",
            ", ".join(f"{k}={v:.3f}" for k, v in report.diversity.items() if isinstance(v, float)),
        )
    cut = report.prompt_truncation
    if cut is not None:  # measured with the text-to-image model's own tokenizer
        table.add_row(
            "[yellow]prompt length[/]" if cut.truncated else "prompt length",
            f"{cut.truncated} of {cut.items} descriptions past the {cut.limit}-token limit of "
            f"{escape(cut.encoder)} (longest {cut.longest})",
        )
    for problem in report.plan.problems if report.plan else []:
        table.add_row("[yellow]problem[/]", problem)
    table.add_row("time", f"{report.wall_s or 0.0:.1f}s")
    console.print(table)
    print_warnings(list(report.warnings))


# The command's options as annotated aliases, so the signature reads as a list of names.
Capability = Annotated[
    list[str],
    typer.Argument(
        help='e.g. "spatial understanding"; several build one benchmark each in one run '
        "(AutoBench-V's study of five user inputs is one command)."
    ),
]
Examiner = Annotated[str, typer.Option(help="procedural, or a chat model spec.")]
Images = Annotated[str, typer.Option(help="procedural, or a text-to-image spec.")]
Mode = Annotated[
    str,
    typer.Option(
        help="scene: the examiner writes scene programs; "
        "text: free-text descriptions for a T2I model."
    ),
]
GeneralAspects = Annotated[
    int, typer.Option("--general-aspects", "-n", help="General aspects (the paper's n).")
]
# Not -m: that means --model in every other command.
FineAspects = Annotated[
    int,
    typer.Option("--fine-aspects", "-k", help="Fine aspects per general aspect (the paper's m)."),
]
PerAspect = Annotated[int, typer.Option(help="Images per fine aspect and level (ω).")]
Levels = Annotated[str, typer.Option(help="Comma-separated difficulty levels.")]
Seed = Annotated[int, typer.Option(help="Seed for sampling and balancing.")]
Name = Annotated[str | None, typer.Option(help="Benchmark name (default from capability).")]
Zeta = Annotated[str | None, typer.Option(help="Self-check thresholds, e.g. hard=0.6.")]
MaxAttempts = Annotated[int, typer.Option(help="Renders per image before dropping it.")]
TfShare = Annotated[float, typer.Option(help="Share of true/false questions (model examiners).")]
DiversityGraph = Annotated[
    bool,
    typer.Option(help="Semantic-graph exclusion of repeated themes (stored with the run)."),
]
Exclusions = Annotated[
    str,
    typer.Option(
        help="Semantic-graph schedule f(i), nodes banned after round i: i (paper), 2i, or N."
    ),
]
KChecks = Annotated[int, typer.Option("--k-checks", help="Self-check questions per image (k).")]
Guidelines = Annotated[
    bool,
    typer.Option(help="A guideline per fine aspect (off: the paper's Table 4 ablation)."),
]
ImageSize = Annotated[
    int,
    typer.Option(
        help="Image side in pixels for the text-to-image model (SDXL and Flux draw 1024 "
        "natively); part of the benchmark, so a resume must give the same size. A size the "
        "--images back-end cannot draw is refused before any request."
    ),
]
Concurrency = Annotated[int, typer.Option(help="Units in flight.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Budget = Annotated[
    int | None,
    typer.Option(
        help="Build units in rounds of a stratified order (capability × general aspect × "
        "difficulty, seeded by --seed) until N calls are spent: examiner and text-to-image "
        "requests (cached and stored work costs none; a re-run counts what the units it "
        "finds cost when built), plus with --until one examinee call per item and model. "
        "No unit starts once N is reached and a round asks only the units the rest pays "
        "for at the mean cost so far; units in flight finish, so N can be passed by what "
        "those (at most --concurrency units) cost.",
        show_default=False,
    ),
]
BudgetUsd = Annotated[
    float | None,
    typer.Option(
        "--budget-usd",
        help="Build in rounds (as --budget does) until X US dollars are spent: the "
        "examiner's tokens at its spec's price=IN,OUT (USD per million input, output "
        "tokens), each image at the --images spec's price=USD_PER_IMAGE, plus with --until "
        "the examinees' answers at their price=IN,OUT (procedural work is free; any other "
        "spec needs a price). A unit counts what it cost when built, so a re-run pays "
        "nothing and stops at the same place. The first round is one unit, each later one "
        "at most as many as came before and only as many as fit when each costs as much as "
        "the dearest seen; no unit starts once X is reached and units in flight finish. So "
        "X is passed only by the plan (made whatever X) and a first unit dearer than what "
        "it left, or by a round whose units are dearer than every unit before (by at most "
        "their excess). With --budget, the first cap reached stops.",
        show_default=False,
    ),
]
Until = Annotated[
    str | None,
    typer.Option(
        help="Generate in rounds and let the --model examinees answer each round's items "
        "until answered: rank (every adjacent pair separated) or compare:A,B (is A better "
        "than B); anytime-valid tests at --alpha.",
        show_default=False,
    ),
]
Models = Annotated[
    list[str] | None,
    # No -m: tests/cli/test_finding_things.py pins "-m" as no generate option, so the
    # paper's m (fine aspects, -k) is never mistaken for an examinee or the reverse.
    typer.Option("--model", help="With --until: an examinee spec; repeatable."),
]
Alpha = Annotated[float, typer.Option(help="With --until: the chance of a wrong decision at most.")]
FirstRound = Annotated[
    int,
    typer.Option(
        help="With --budget, --budget-usd or --until: units in the first round (then "
        "doubling; a money cap starts with one)."
    ),
]


@friendly_errors
def generate(
    capability: Capability,
    examiner: Examiner = "procedural",
    images: Images = "procedural",
    mode: Mode = "scene",
    n: GeneralAspects = 4,
    m: FineAspects = 6,
    per_aspect: PerAspect = 10,
    levels: Levels = "easy,medium,hard",
    seed: Seed = 0,
    name: Name = None,
    zeta: Zeta = None,
    max_attempts: MaxAttempts = 3,
    tf_share: TfShare = 0.2,
    diversity_graph: DiversityGraph = True,
    exclusions: Exclusions = "i",
    k_checks: KChecks = 5,
    guidelines: Guidelines = True,
    image_size: ImageSize = 512,
    concurrency: Concurrency = 8,
    store: StoreOption = None,
    as_json: AsJson = False,
    budget: Budget = None,
    budget_usd: BudgetUsd = None,
    until: Until = None,
    model: Models = None,
    alpha: Alpha = 0.05,
    first_round: FirstRound = 50,
) -> None:
    """Generate a benchmark for a capability: aspects, guidelines, graded descriptions, images
    with self-check, questions from descriptions only, balanced answer positions."""
    options = GenerateOptions(
        capability=capability[0], examiner=examiner, images=images, mode=mode, n=n, m=m,
        per_aspect=per_aspect, levels=levels, seed=seed, name=name, zeta=zeta,
        max_attempts=max_attempts, tf_share=tf_share, diversity_graph=diversity_graph,
        exclusions=exclusions, k_checks=k_checks, guidelines=guidelines,
        image_size=image_size, concurrency=concurrency, budget=budget, budget_usd=budget_usd,
        until=until,
        models=tuple(model or ()), alpha=alpha, first_round=first_round,
    )  # fmt: skip
    planned = plan_several(options, capability)  # all refused before the store is opened
    opened = open_store(store)

    def bars(label: str, client: ModelClient | None) -> AbstractContextManager[ProgressHook | None]:
        return progress_bar(label, not as_json, client)

    made = asyncio.run(generate_several(opened, planned, bars=bars))
    if as_json:
        one = len(made) == 1  # one capability keeps the report it always had
        print_json(_as_json(made[0]) if one else {"benchmarks": [_as_json(m) for m in made]})
    else:
        for each in made:
            _print(each)
    if any(each.failed for each in made):
        raise typer.Exit(EXIT_FAILURES)


def _as_json(made: GenerateResult) -> dict[str, Any]:
    out: dict[str, Any] = {"benchmark": made.benchmark, **made.report.as_json()}
    if made.rounds is not None:
        out["budget"] = made.rounds.as_json()
        if made.rounds.decided is not None:
            out["runs"] = [vars(s) for s in made.rounds.summaries]
    return out


def _print(made: GenerateResult) -> None:
    print_report(made.report, made.benchmark)
    if made.rounds is None:
        return
    for s in made.rounds.summaries:
        console.print(
            f"{s.model}: {outcomes_text(s)}, {s.skipped} already done, "
            f"{s.wall_s:.1f}s{paid_text(s)}"
        )
    print_rounds(made.rounds)


def print_rounds(run: Generated) -> None:
    """Units built against the plan, calls against the budget and the full plan, and with
    --until the decision."""
    b = run.report.budget
    if b is None:  # a generation in rounds always reports its budget
        return
    if run.decided is not None:
        console.print(f"[bold]decision[/]: {run.decided.decision.text}")
        console.print(
            f"items asked: {len(run.decided.asked)} in {run.decided.rounds} round(s), "
            "each examinee answering each round's new items"
        )
    share = b.units_built / b.units_planned if b.units_planned else 1.0
    console.print(
        f"units built: {b.units_built} of {b.units_planned} planned ({share:.0%}) in "
        f"{b.rounds} round(s), stratified over {' × '.join(STRATA)} (largest stratum share "
        f"gap {100 * b.strata_share_gap:.1f} points)"
    )
    cap = f" of a budget of {b.budget}" if b.budget is not None else ""
    spent = (
        f"calls: {b.calls}{cap} ({b.generation_calls} examiner and text-to-image, "
        f"{b.examinee_calls} examinee)"
    )
    full = b.calls_full_estimate
    if full is not None:
        spent += (
            f"; the full plan would take about {full} (an estimate: "
            f"{b.calls_per_unit:.2f} calls per unit built), about "
            f"{b.calls_saved_estimate} saved"
        )
    console.print(
        f"{spent}; {run.requests} requests sent by this run (stored and cached work costs none)"
    )
    if b.money is not None:
        console.print(money_text(b.money.as_json(), run.paid_usd, b.units_planned))
