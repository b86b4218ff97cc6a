"""What ``lvlmbench evaluate`` and ``api.evaluate`` take: one options value with the command's
defaults, and the checks made on it before the store is opened (a typo writes nothing)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lvlmbench.choice.accuracy import GROUPINGS, available_facets, carries_facet, facet_name
from lvlmbench.models import GenerationSettings, specs_with_settings
from lvlmbench.runner import VARIANTS
from lvlmbench.types import BenchmarkItem
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._examinees import check_specs, could_be_imported
from lvlmbench.workflows._money import check_budget_usd, require_prices
from lvlmbench.workflows._rounds import check_round_options, parse_until

__all__ = [
    "DEFAULT_BY",
    "EvaluateOptions",
    "checked_specs",
    "groupings_for",
    "parse_groupings",
]

DEFAULT_BY: tuple[str, ...] = ("difficulty",)
"""evaluate's grouping unless told otherwise (dropped on a benchmark whose items have none)."""


@dataclass(frozen=True)
class EvaluateOptions:
    """Every option of ``lvlmbench evaluate``, with its defaults (``--json`` and ``--store``
    are the front door's: how to print, where the store is)."""

    models: Sequence[str]
    """Examinee specs, or names with stored responses (imported players: scored, not run)."""
    variant: str = "default"
    by: Sequence[str] = DEFAULT_BY
    """Facets the accuracy is grouped by (empty: one row per model). The default groups by
    difficulty where the benchmark's items have one (an imported benchmark often has none)."""
    concurrency: int | None = None
    """Requests in flight per endpoint (None: the client's default, or a local model's)."""
    extract_with: str | None = None
    """An LLM that reads the answers the rules leave unparseable."""
    limit: int | None = None
    """Ask only a seeded stratified subset of this many items."""
    limit_seed: int = 0
    epochs: int = 1
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    """Generation settings for every examinee run (they become part of its identity)."""
    workers: int = 1
    """Local processes that split the work through leases in the store."""
    until: str | None = None
    """``rank`` or ``compare:A,B``: ask in doubling rounds until the question is decided."""
    budget: int | None = None
    budget_usd: float | None = None
    alpha: float = 0.05
    first_round: int = 50

    def __post_init__(self) -> None:
        # Kept as tuples (the value is frozen); one string would read as a name per character.
        for name in ("models", "by"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise InvalidOptions(f"{name}: expected a list of names, got the string {value!r}")
            object.__setattr__(self, name, tuple(value))


def groupings_for(
    by: Sequence[str], items: Iterable[BenchmarkItem], benchmark: str
) -> tuple[list[str], list[str]]:
    """The facets to group ``items`` by, and what to tell the user: ``by`` validated, less the
    facets no item has a value of (a column of "-" would read as a group of its own). Dropping
    the default is silent; dropping a facet the user named is said."""
    items = list(items)
    facets = parse_groupings(by, available_facets(items))
    present = [f for f in facets if carries_facet(items, f)]
    if not items or tuple(by) == DEFAULT_BY:
        return present, []
    notes = [
        f"--by {facet}: no item of {benchmark} has a value of it; not grouped by it"
        for facet in facets
        if facet not in present
    ]
    return present, notes


def parse_groupings(by: Sequence[str], available: Sequence[str] = GROUPINGS) -> list[str]:
    """Validated facet names (``available``: the benchmark's facets; ``l2-category`` names
    ``l2_category``)."""
    facets = [f.strip() for f in by if f.strip()]
    unknown = [f for f in facets if f not in available and facet_name(f) not in available]
    if unknown:
        raise InvalidOptions(
            f"--by {','.join(by)!r}: unknown facet {unknown[0]!r}; "
            f"choose from {', '.join(available)}"
        )
    return facets


def _check_values(options: EvaluateOptions) -> None:
    if not options.models:
        raise InvalidOptions("--model: give at least one model to evaluate")
    if options.variant not in VARIANTS:
        raise InvalidOptions(f"--variant {options.variant!r}: choose from {', '.join(VARIANTS)}")
    for value, option in ((options.concurrency, "--concurrency"), (options.workers, "--workers")):
        if value is not None and value < 1:
            raise InvalidOptions(f"{option} must be at least 1, got {value}")
    if options.epochs < 1:
        raise InvalidOptions(f"--epochs {options.epochs}: expected at least 1")


def _check_until(options: EvaluateOptions) -> tuple[int, ...] | None:
    """Positions of the models ``until`` decides on (None without it); InvalidOptions for
    options that need it or do not fit a budgeted run."""
    budget, budget_usd = options.budget, options.budget_usd
    if options.until is None:
        for given, option in ((budget, "--budget"), (budget_usd, "--budget-usd")):
            if given is not None:
                raise InvalidOptions(
                    f"{option} caps a budgeted run: give --until rank or compare:A,B"
                )
        return None
    if budget is not None and budget < 1:
        raise InvalidOptions(f"--budget {budget}: expected a whole number of calls, at least 1")
    check_budget_usd(budget_usd)
    if options.workers != 1 or options.extract_with is not None:
        # Rounds decide between runs on the stored scores: one process, rule-read answers.
        raise InvalidOptions(
            "--until runs rounds in one process: leave out --workers and --extract-with"
        )
    check_round_options(options.alpha, options.first_round)
    return parse_until(options.until, list(options.models))


def checked_specs(options: EvaluateOptions) -> tuple[list[str], tuple[int, ...] | None]:
    """The model names with the generation settings written into each provider spec, and the
    positions ``until`` decides on; InvalidOptions (or RegistryError for a spec naming a
    provider) before any store is opened."""
    _check_values(options)
    decided = _check_until(options)
    try:
        specs = specs_with_settings(list(options.models), options.settings)
    except ValueError as exc:
        raise InvalidOptions(str(exc)) from None
    # Every spec naming a provider is checked now; other names may be imported players,
    # looked up in the store.
    runnable = [m for m in specs if not could_be_imported(m)]
    check_specs(runnable)
    if options.budget_usd is not None:  # imported players are not run: they cost nothing
        require_prices(runnable)
    if options.extract_with is not None:
        check_specs([options.extract_with])
    return specs, decided
