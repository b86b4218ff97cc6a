"""`lvlmbench generate CAPABILITY`: build an AutoBench-V benchmark on demand."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from lvlmbench.autobench.pipeline import DEFAULT_ZETA, LEVELS, GenerateSettings
from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    friendly_errors,
    open_store,
    paid_text,
    print_json,
    progress_bar,
)
from lvlmbench.cli._gen_rounds import RoundOptions, check_rounds, generate_in_rounds, print_rounds
from lvlmbench.scenes.compose import compose_capability
from lvlmbench.store import Store
from lvlmbench.workflows import generation_prices

__all__ = ["generate", "parse_levels", "parse_zeta", "run_generation"]


def parse_levels(levels: str) -> tuple[str, ...]:
    """``easy,hard`` -> validated level names."""
    chosen = tuple(lv.strip() for lv in levels.split(",") if lv.strip())
    bad = [lv for lv in chosen if lv not in LEVELS]
    if bad or not chosen:
        raise BadInput(f"--levels {levels!r}: choose from {', '.join(LEVELS)}")
    return chosen


def parse_zeta(text: str | None) -> dict[str, float]:
    """``medium=0.6,hard=0.6`` -> thresholds over the paper's defaults."""
    zeta = dict(DEFAULT_ZETA)
    for part in (text or "").split(","):
        if not part.strip():
            continue
        level, _, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            raise BadInput(f"--zeta {text!r}: expected level=number pairs") from None
        if level.strip() not in LEVELS or not 0 <= number <= 1:
            raise BadInput(
                f"--zeta {part!r}: level must be one of {', '.join(LEVELS)} and ζ between 0 and 1"
            )
        zeta[level.strip()] = number
    return zeta


async def run_generation(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    show_progress: bool,
) -> dict[str, Any]:
    """Run the pipeline for the specs (:func:`lvlmbench.autobench.backends.generate_with`)
    with a progress bar."""
    from lvlmbench.autobench.backends import generate_with

    with progress_bar(f"generate {settings.benchmark}", show_progress) as hook:
        return await generate_with(store, settings, examiner, images, mode, hook)


def print_report(report: dict[str, Any], name: str) -> None:
    """A short human summary of a generation report."""
    check = report["self_check"]
    table = Table(title=f"benchmark {name}", show_header=False, title_justify="left")
    table.add_row("examiner", report["examiner"])
    note = report["plan"].get("note")
    if note:  # a free-text capability composed from built-in aspects: said, never hidden
        table.add_row("[yellow]capability[/]", escape(note))
    # A generation in rounds may stop early: its units are those built, not all planned.
    units = "built" if "budget" in report else "planned"
    table.add_row(
        "items", f"{report['items']} of {check['units']} {units} ({check['dropped']} dropped)"
    )
    table.add_row(
        "self-check",
        f"{check['rejected_renders']} of {check['renders']} renders "
        f"rejected ({100 * check['rejection_rate']:.1f}%), "
        f"{100 * check['regeneration_rate']:.1f}% of units regenerated, "
        f"{check['accepted_with_errors']} accepted with errors",
    )
    keys = report.get("key_check")
    if keys:  # reports stored before the key check's own figures have none
        table.add_row(
            "key check",
            f"{keys['verified']} verified, {keys['mismatched']} mismatched "
            f"({keys['units_dropped']} units dropped), {keys['not_checkable']} not checkable; "
            f"{keys['reasks']} re-asks ({keys['fixed_by_reask']} fixed)",
        )
    table.add_row(
        "answer letters", ", ".join(f"{k}: {v}" for k, v in report["answer_letters"].items())
    )
    letters, truths = report.get("answer_letters_by_level", {}), report.get("truth_by_level", {})
    for level in sorted(letters.keys() | truths.keys()):
        parts = [" ".join(f"{k}{v}" for k, v in letters.get(level, {}).items())]
        if level in truths:
            parts.append(f"true {truths[level]['true']}, false {truths[level]['false']}")
        table.add_row(f"  {level}", "; ".join(p for p in parts if p))
    if report.get("diversity"):
        table.add_row(
            "diversity",
            ", ".join(
                f"{k}={v:.3f}" for k, v in report["diversity"].items() if isinstance(v, float)
            ),
        )
    for problem in report["plan"].get("problems", []):
        table.add_row("[yellow]problem[/]", problem)
    table.add_row("time", f"{report['wall_s']:.1f}s")
    console.print(table)


@friendly_errors
def generate(
    capability: Annotated[str, typer.Argument(help='e.g. "spatial understanding"')],
    examiner: Annotated[str, typer.Option(help="procedural, or a chat model spec.")] = "procedural",
    images: Annotated[
        str, typer.Option(help="procedural, or a text-to-image spec.")
    ] = "procedural",
    mode: Annotated[
        str,
        typer.Option(
            help="scene: the examiner writes scene programs; "
            "text: free-text descriptions for a T2I model."
        ),
    ] = "scene",
    n: Annotated[
        int, typer.Option("--general-aspects", "-n", help="General aspects (the paper's n).")
    ] = 4,
    # Not -m: that means --model in every other command.
    m: Annotated[
        int,
        typer.Option(
            "--fine-aspects", "-k", help="Fine aspects per general aspect (the paper's m)."
        ),
    ] = 6,
    per_aspect: Annotated[int, typer.Option(help="Images per fine aspect and level (ω).")] = 10,
    levels: Annotated[
        str, typer.Option(help="Comma-separated difficulty levels.")
    ] = "easy,medium,hard",
    seed: Annotated[int, typer.Option(help="Seed for sampling and balancing.")] = 0,
    name: Annotated[
        str | None, typer.Option(help="Benchmark name (default from capability).")
    ] = None,
    zeta: Annotated[str | None, typer.Option(help="Self-check thresholds, e.g. hard=0.6.")] = None,
    max_attempts: Annotated[int, typer.Option(help="Renders per image before dropping it.")] = 3,
    tf_share: Annotated[
        float, typer.Option(help="Share of true/false questions (model examiners).")
    ] = 0.2,
    diversity_graph: Annotated[
        bool,
        typer.Option(help="Semantic-graph exclusion of repeated themes (stored with the run)."),
    ] = True,
    exclusions: Annotated[
        str,
        typer.Option(
            help="Semantic-graph schedule f(i), nodes banned after round i: i (paper), 2i, or N."
        ),
    ] = "i",
    k_checks: Annotated[
        int, typer.Option("--k-checks", help="Self-check questions per image (k).")
    ] = 5,
    guidelines: Annotated[
        bool,
        typer.Option(help="A guideline per fine aspect (off: the paper's Table 4 ablation)."),
    ] = True,
    concurrency: Annotated[int, typer.Option(help="Units in flight.")] = 8,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    budget: Annotated[
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
    ] = None,
    budget_usd: Annotated[
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
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            help="Generate in rounds and let the --model examinees answer each round's items "
            "until answered: rank (every adjacent pair separated) or compare:A,B (is A better "
            "than B); anytime-valid tests at --alpha.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        # No -m: tests/cli/test_finding_things.py pins "-m" as no generate option, so the
        # paper's m (fine aspects, -k) is never mistaken for an examinee or the reverse.
        typer.Option("--model", help="With --until: an examinee spec; repeatable."),
    ] = None,
    alpha: Annotated[
        float, typer.Option(help="With --until: the chance of a wrong decision at most.")
    ] = 0.05,
    first_round: Annotated[
        int,
        typer.Option(
            help="With --budget, --budget-usd or --until: units in the first round (then "
            "doubling; a money cap starts with one)."
        ),
    ] = 50,
) -> None:
    """Generate a benchmark for a capability: aspects, guidelines, graded descriptions, images
    with self-check, questions from descriptions only, balanced answer positions."""
    if mode not in ("scene", "text"):
        raise BadInput(f"--mode {mode!r}: choose scene or text")
    if not 0 <= tf_share <= 1:
        raise BadInput(f"--tf-share {tf_share}: must be between 0 and 1")
    check_concurrency(concurrency)
    models = model or []
    decided = check_rounds((budget, budget_usd), until, models, alpha, first_round)
    settings = GenerateSettings(
        capability=capability,
        name=name,
        n=n,
        m=m,
        per_aspect=per_aspect,
        levels=parse_levels(levels),
        seed=seed,
        zeta=parse_zeta(zeta),
        max_attempts=max_attempts,
        tf_share=tf_share,
        diversity_graph=diversity_graph,
        exclusions=exclusions,
        k_checks=k_checks,
        concurrency=concurrency,
        guidelines=guidelines,
    )
    try:
        settings.validate()
        if examiner == "procedural":  # refused before the store is opened: nothing written
            compose_capability(capability)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    chosen: Literal["scene", "text"] = "scene" if mode == "scene" else "text"
    # Prices are checked before the store is opened too: a missing one writes nothing.
    prices = None if decided is None else generation_prices(examiner, images, models, budget_usd)
    opened = open_store(store)
    if decided is not None:
        options = RoundOptions(
            budget,
            until,
            models,
            decided,
            alpha,
            first_round,
            concurrency,
            not as_json,
            budget_usd,
            prices,
        )
        _in_rounds(opened, settings, examiner, images, chosen, options, as_json)
        return
    try:
        report = asyncio.run(
            run_generation(opened, settings, examiner, images, chosen, not as_json)
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if as_json:
        print_json({"benchmark": settings.benchmark, **report})
    else:
        print_report(report, settings.benchmark)


def _in_rounds(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    options: RoundOptions,
    as_json: bool,
) -> None:
    """``generate --budget`` / ``--until``: build in rounds, print the report and the budget."""
    try:
        run = asyncio.run(generate_in_rounds(store, settings, examiner, images, mode, options))
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if as_json:
        out: dict[str, Any] = {"benchmark": settings.benchmark, **run.report}
        out["budget"] = run.as_json()
        if run.decided is not None:
            out["runs"] = [vars(s) for s in run.summaries]
        print_json(out)
    else:
        print_report(run.report, settings.benchmark)
        for s in run.summaries:
            console.print(
                f"{s.model}: {s.ok} ok, {s.unparseable} unparseable, {s.refused} refused, "
                f"{s.failed} failed, {s.skipped} already done, {s.wall_s:.1f}s{paid_text(s)}"
            )
        print_rounds(run)
    if any(s.failed for s in run.summaries):
        raise typer.Exit(EXIT_FAILURES)
