"""The judge use case's options, and the checks they get before any store is opened."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

from lvlmbench.judging import (
    PAIRWISE,
    REFERENCE,
    REFERENCE_PREFIX,
    SCORE,
    protocol_for,
    protocols,
    reference_name,
)
from lvlmbench.models import DEFAULT_CONCURRENCY, GenerationSettings, specs_with_settings
from lvlmbench.ratings import CombineRule
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._examinees import could_be_imported
from lvlmbench.workflows.ratings import combine_rule

__all__ = [
    "JudgeOptions",
    "Resolve",
    "check_judge_options",
    "judges_epochs",
    "players_of",
    "runnable_protocols",
]

Resolve = Callable[[str], str]
"""A model spec -> its stored identity (RegistryError on a bad spec)."""


@dataclass(frozen=True)
class JudgeOptions:
    """Every option of ``lvlmbench judge PROTOCOL``, with the command's defaults."""

    models: tuple[str, ...]
    """The examinees (specs, ``reference``, ``reference:<writer>`` or imported players)."""
    judge: str
    """The judge's spec; ``settings`` are written into it (they make its identity)."""
    protocol: str = PAIRWISE
    """``pairwise`` (VisIT-Bench), ``score`` (TouchStone) or a registered protocol that judges
    by itself (``hallucination``, ...)."""
    reference_free: bool = False
    """pairwise: do not show the reference to the judge."""
    play_reference: bool = True
    """pairwise, reference-free only: the reference plays as model ``reference``."""
    combine: str = "majority"
    """pairwise: how a pair's two orders combine in the ratings (``majority`` or ``both``)."""
    regenerate_reference: bool = False
    """score: against a caption-assisted reference written by ``writer`` (default: the judge)."""
    writer: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    """Judge requests in flight per endpoint."""
    workers: int = 1
    """Local processes that split the units through leases in the store."""
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    """The judge's generation settings (``--temperature``, ``--max-tokens``, ...)."""
    limit: int | None = None
    """Judge (and ask missing answers on) only this many items: the seeded stratified subset
    ``evaluate --limit`` picks with the same ``limit_seed``. None: every item."""
    limit_seed: int = 0
    """The seed of the ``limit`` subset."""
    epochs: int = 1
    """Answers per item and examinee (``evaluate --epochs K``'s samples, asked where missing),
    each epoch's judged as its own units; the results average an item's epochs (the item is
    the unit)."""

    @property
    def judge_spec(self) -> str:
        """The judge's spec with ``settings`` written in (InvalidOptions on a conflict)."""
        try:
            return specs_with_settings([self.judge], self.settings)[0]
        except ValueError as exc:
            raise InvalidOptions(str(exc)) from None

    @property
    def writer_spec(self) -> str:
        return self.writer or self.judge_spec

    @property
    def combine_rule(self) -> CombineRule:
        return combine_rule(self.combine)


def runnable_protocols() -> list[str]:
    """The protocols a judge run can use: pairwise, score and every registered protocol that
    judges by itself."""
    return [PAIRWISE, SCORE, *(p.name for p in protocols() if p.run is not None)]


def judges_epochs(protocol: str) -> bool:
    """Whether a runnable protocol judges ``--epochs K`` (its run takes ``epochs``)."""
    if protocol in (PAIRWISE, SCORE):
        return True
    run = protocol_for(protocol).run
    return run is not None and "epochs" in inspect.signature(run).parameters


def check_judge_options(options: JudgeOptions, resolve: Resolve) -> None:
    """InvalidOptions (or RegistryError for a spec) for options no run can use, before the
    store is opened: a typo writes nothing."""
    if isinstance(options.models, str):
        raise InvalidOptions("models: expected a list of model specs, got one string")
    if options.concurrency < 1:
        raise InvalidOptions(f"--concurrency must be at least 1, got {options.concurrency}")
    if options.workers < 1:
        raise InvalidOptions(f"--workers must be at least 1, got {options.workers}")
    if options.limit is not None and options.limit < 1:
        raise InvalidOptions(f"--limit {options.limit}: expected a whole number of at least 1")
    if options.epochs < 1:
        raise InvalidOptions(f"--epochs {options.epochs}: expected at least 1")
    runnable = runnable_protocols()
    if options.protocol not in runnable:
        raise InvalidOptions(f"protocol {options.protocol!r}: choose one of {', '.join(runnable)}")
    if options.epochs > 1 and not judges_epochs(options.protocol):
        raise InvalidOptions(
            f"--epochs {options.epochs}: the {options.protocol} protocol judges one answer per "
            "item (its run takes no epochs)"
        )
    options.combine_rule  # noqa: B018 - raises InvalidOptions for an unknown rule
    if options.writer is not None and not options.regenerate_reference:
        raise InvalidOptions(
            "--writer only applies with --regenerate-reference "
            "(the dataset's own reference needs no writer)"
        )
    for spec in [*options.models, options.judge_spec, options.writer_spec]:
        player_identity(spec, resolve)


def player_identity(spec: str, resolve: Resolve) -> str:
    """The stored name of a player: a model spec's identity (a bad spec or option raises
    RegistryError); ``reference`` and imported players' names as they are, and
    ``reference:<spec>`` with the writer's identity."""
    if spec == REFERENCE or could_be_imported(spec):
        return spec
    if spec.startswith(REFERENCE_PREFIX):
        return reference_name(resolve(spec.removeprefix(REFERENCE_PREFIX)))
    return resolve(spec)


def players_of(specs: tuple[str, ...] | list[str], resolve: Resolve) -> dict[str, str]:
    """identity -> spec of the examinees (the judging functions look answers up by identity;
    a missing answer is asked of the spec as given, which may carry a key or a timeout)."""
    return {player_identity(spec, resolve): spec for spec in specs}
