"""The generate use case: build (or resume) an AutoBench-V benchmark for a capability, at once or
in rounds (``budget``/``budget_usd``/``until``). `lvlmbench generate` and ``api.generate`` both
call :func:`generate` with the same :class:`GenerateOptions`, so they refuse, build and store
alike; only the printing differs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from lvlmbench.autobench.pipeline import DEFAULT_ZETA, LEVELS, GenerateSettings
from lvlmbench.autobench.unit_costs import GenerationPrices
from lvlmbench.images import check_image_size
from lvlmbench.scenes.compose import compose_capability
from lvlmbench.store import GenerationReport, Store
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._generate_rounds import (
    GenerateBars,
    Generated,
    RoundOptions,
    bar_for,
    check_rounds,
    generate_in_rounds,
)
from lvlmbench.workflows._generation_money import generation_prices
from lvlmbench.workflows._self_preference import examiner_among_examinees

__all__ = [
    "GenerateOptions",
    "GenerateResult",
    "PlannedGeneration",
    "check_generate_options",
    "generate",
    "parse_levels",
    "parse_zeta",
]


@dataclass(frozen=True)
class GenerateOptions:
    """What `lvlmbench generate` takes, with its defaults (``levels`` and ``zeta`` as the
    command's text; ``models`` is its repeatable ``--model``)."""

    capability: str
    examiner: str = "procedural"
    images: str = "procedural"
    mode: str = "scene"
    n: int = 4
    m: int = 6
    per_aspect: int = 10
    levels: str = ",".join(LEVELS)
    seed: int = 0
    name: str | None = None
    zeta: str | None = None
    max_attempts: int = 3
    tf_share: float = 0.2
    diversity_graph: bool = True
    exclusions: str = "i"
    k_checks: int = 5
    guidelines: bool = True
    image_size: int = 512
    """The text-to-image side in pixels (part of the benchmark's definition)."""
    concurrency: int = 8
    budget: int | None = None
    budget_usd: float | None = None
    until: str | None = None
    models: tuple[str, ...] = ()
    alpha: float = 0.05
    first_round: int = 50


@dataclass(frozen=True)
class PlannedGeneration:
    """Options checked before any store is opened: the pipeline's settings, and for a
    generation in rounds the examinees ``until`` decides on and the prices."""

    settings: GenerateSettings
    mode: Literal["scene", "text"]
    decided: tuple[int, ...] | None
    """None: built at once; otherwise in rounds (positions in ``models`` decided on)."""
    prices: GenerationPrices | None
    warnings: tuple[str, ...] = ()
    """What the benchmark should be read with (an examinee that is the examiner), stored in
    its generation report."""


@dataclass(frozen=True)
class GenerateResult:
    """What :func:`generate` built: the stored report, and for a generation in rounds what it
    built, spent and decided."""

    benchmark: str
    report: GenerationReport
    """The generation report stored with the benchmark."""
    rounds: Generated | None = None

    @property
    def failed(self) -> bool:
        """An examinee call failed (``until``): the command exits with its failures code."""
        return self.rounds is not None and any(s.failed for s in self.rounds.summaries)


def parse_levels(levels: str) -> tuple[str, ...]:
    """``easy,hard`` -> validated level names."""
    chosen = tuple(lv.strip() for lv in levels.split(",") if lv.strip())
    bad = [lv for lv in chosen if lv not in LEVELS]
    if bad or not chosen:
        raise InvalidOptions(f"--levels {levels!r}: choose from {', '.join(LEVELS)}")
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
            raise InvalidOptions(f"--zeta {text!r}: expected level=number pairs") from None
        if level.strip() not in LEVELS or not 0 <= number <= 1:
            raise InvalidOptions(
                f"--zeta {part!r}: level must be one of {', '.join(LEVELS)} and ζ between 0 and 1"
            )
        zeta[level.strip()] = number
    return zeta


def _settings(options: GenerateOptions) -> GenerateSettings:
    return GenerateSettings(
        capability=options.capability,
        name=options.name,
        n=options.n,
        m=options.m,
        per_aspect=options.per_aspect,
        levels=parse_levels(options.levels),
        seed=options.seed,
        zeta=parse_zeta(options.zeta),
        max_attempts=options.max_attempts,
        tf_share=options.tf_share,
        diversity_graph=options.diversity_graph,
        exclusions=options.exclusions,
        k_checks=options.k_checks,
        concurrency=options.concurrency,
        guidelines=options.guidelines,
        image_size=options.image_size,
    )


def check_generate_options(options: GenerateOptions) -> PlannedGeneration:
    """InvalidOptions for anything refused, before a store is opened (nothing is written)."""
    if options.mode not in ("scene", "text"):
        raise InvalidOptions(f"--mode {options.mode!r}: choose scene or text")
    if not 0 <= options.tf_share <= 1:
        raise InvalidOptions(f"--tf-share {options.tf_share}: must be between 0 and 1")
    if options.concurrency < 1:
        raise InvalidOptions(f"--concurrency must be at least 1, got {options.concurrency}")
    models = list(options.models)
    budgets = (options.budget, options.budget_usd)
    decided = check_rounds(budgets, options.until, models, options.alpha, options.first_round)
    settings = _settings(options)
    from lvlmbench.autobench.backends import check_pairing

    try:
        settings.validate()
        check_pairing(options.examiner, options.images, options.mode, options.guidelines)
        if options.examiner == "procedural":
            compose_capability(options.capability)
        # From the spec alone, before anything is drawn: a size the back-end would refuse is
        # refused here rather than by its first (paid) request.
        check_image_size(options.images, options.image_size)
    except ValueError as exc:
        raise InvalidOptions(str(exc)) from None
    prices = None
    if decided is not None:  # a missing price is refused here too
        prices = generation_prices(options.examiner, options.images, models, options.budget_usd)
    mode: Literal["scene", "text"] = "scene" if options.mode == "scene" else "text"
    warnings = examiner_among_examinees(options.examiner, settings.benchmark, models)
    return PlannedGeneration(settings, mode, decided, prices, warnings)


async def generate(
    store: Store,
    options: GenerateOptions,
    *,
    bars: GenerateBars | None = None,
    planned: PlannedGeneration | None = None,
) -> GenerateResult:
    """Build (or resume) the benchmark ``options`` describe into ``store``; ``bars`` shows
    progress. ``planned``: :func:`check_generate_options`' result when the caller checked
    before opening the store. A ValueError of the pipeline is raised as InvalidOptions."""
    from lvlmbench.autobench.backends import generate_with

    plan = planned or check_generate_options(options)
    settings = plan.settings
    label = f"generate {settings.benchmark}"
    try:
        if plan.decided is None:
            with bar_for(bars, label) as hook:
                report = await generate_with(
                    store, settings, options.examiner, options.images, plan.mode, hook
                )
            return GenerateResult(settings.benchmark, report)
        rounds = RoundOptions(
            options.budget,
            options.until,
            list(options.models),
            plan.decided,
            options.alpha,
            options.first_round,
            options.concurrency,
            bars,
            options.budget_usd,
            plan.prices,
            plan.warnings,
        )
        run = await generate_in_rounds(
            store, settings, options.examiner, options.images, plan.mode, rounds
        )
    except InvalidOptions:
        raise
    except ValueError as exc:
        raise InvalidOptions(str(exc)) from None
    return GenerateResult(settings.benchmark, run.report, run)


def plan_several(
    options: GenerateOptions, capabilities: Sequence[str]
) -> list[tuple[GenerateOptions, PlannedGeneration]]:
    """Each capability's options and checked plan, all made before anything is built: one
    bad capability or two landing on the same benchmark name refuse the whole call."""
    if isinstance(capabilities, str):
        raise InvalidOptions("capabilities: expected a list of capabilities, got one string")
    if not capabilities:
        raise InvalidOptions("name a capability to generate a benchmark for")
    if len(capabilities) > 1 and options.name is not None:
        raise InvalidOptions(
            "--name names one benchmark: with several capabilities each is named after its own"
        )
    planned = [
        (each, check_generate_options(each))
        for each in (replace(options, capability=c) for c in capabilities)
    ]
    names = [plan.settings.benchmark for _, plan in planned]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InvalidOptions(f"capabilities that make the same benchmark: {', '.join(twice)}")
    return planned


async def generate_several(
    store: Store,
    planned: Sequence[tuple[GenerateOptions, PlannedGeneration]],
    *,
    bars: GenerateBars | None = None,
) -> list[GenerateResult]:
    """:func:`generate` for each planned capability in turn (each resumable on its own: a
    killed study resumes where it stopped, the capabilities already built cost nothing)."""
    return [await generate(store, each, bars=bars, planned=plan) for each, plan in planned]
