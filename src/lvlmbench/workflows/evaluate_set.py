"""Several benchmarks in one run: ``lvlmbench evaluate B1 B2 -m A -m B``, or an eval-set file
(``evaluate --set study.toml``), and ``api.evaluate_many``.

Each benchmark is the ordinary :func:`~lvlmbench.workflows.evaluate` use case with the same
options (resumable, cached, the same stored rows as one benchmark at a time); the set adds one
summary across them: each model's overall accuracy on each benchmark, with how many of the
benchmark's keyed items it answered, so a partial run never reads as a full one, and beside it
the figure the benchmark's authors publish where that is another one (MMBench's CircularEval,
MME's perception and reasoning scores): a per-row accuracy read against a published
CircularEval figure would flatter every model. Every
benchmark is checked before the first is asked: a typo in the third name writes nothing.

An eval-set file is TOML::

    benchmarks = ["MMBench_DEV_EN", "MME", "MMMU_DEV_VAL"]
    models = ["openai/gpt-4o-mini", "hf/./llava"]

    [settings]            # any option of `evaluate`, by its Python name
    limit = 200
    epochs = 2
    by = ["difficulty"]
    temperature = 0.0     # generation settings as the command's flags
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from lvlmbench.choice.accuracy import AccuracyRow
from lvlmbench.choice.vlmeval_scores import MME_TOTALS, CircularRow, MMERow
from lvlmbench.models import GenerationSettings
from lvlmbench.runner import ProgressFor
from lvlmbench.store import Store, require_benchmark
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._evaluate_options import EvaluateOptions
from lvlmbench.workflows.evaluate import EvaluateResult, check_options, evaluate

__all__ = [
    "EvalSet",
    "EvaluateSetResult",
    "Headline",
    "SetRow",
    "evaluate_many",
    "read_eval_set",
]


@dataclass(frozen=True)
class EvalSet:
    """What an eval-set file asks: the benchmarks and the options every one runs with."""

    benchmarks: tuple[str, ...]
    options: EvaluateOptions


@dataclass(frozen=True)
class Headline:
    """A figure a benchmark is published with, other than the per-item accuracy."""

    metric: str
    """What it is and its unit: "CircularEval %", "MME perception (of 2000)"."""
    value: float | None
    """In the metric's unit; None where the model's answers do not cover what it sums."""
    shown: str
    """The value as printed, or why there is none ("12 of 1083 questions unanswered")."""


@dataclass(frozen=True)
class SetRow:
    """One model on one benchmark, in the summary across benchmarks."""

    benchmark: str
    model: str
    overall: AccuracyRow | None
    """The model's overall row on the benchmark (None: no keyed item answered)."""
    keyed: int
    """The benchmark's keyed items in this run (the ``--limit`` subset when there is one)."""
    headline: tuple[Headline, ...] = ()
    """The benchmark's published figures beside the accuracy (none for most benchmarks)."""

    @property
    def answered(self) -> int:
        """Distinct keyed items the model's answers were scored on."""
        return self.overall.items if self.overall is not None else 0

    @property
    def complete(self) -> bool:
        return self.answered == self.keyed


@dataclass(frozen=True)
class EvaluateSetResult:
    """Each benchmark's result, in the order asked, and the summary across them."""

    results: tuple[EvaluateResult, ...]
    rows: tuple[SetRow, ...]

    @property
    def failed(self) -> bool:
        return any(result.failed for result in self.results)


def evaluate_many(
    store: Store,
    benchmarks: Sequence[str],
    options: EvaluateOptions,
    progress: ProgressFor | None = None,
) -> EvaluateSetResult:
    """Evaluate ``options.models`` on every benchmark of ``benchmarks`` in turn (each exactly as
    :func:`evaluate` alone), then summarise across them. InvalidOptions for an empty or
    repeated list and for a benchmark the store lacks, before anything is asked."""
    names = _checked_names(benchmarks)
    check_options(options)
    for name in names:
        require_benchmark(store, name)
    results = tuple(evaluate(store, name, options, progress) for name in names)
    return EvaluateSetResult(results, tuple(row for r in results for row in _set_rows(r)))


def _checked_names(benchmarks: Sequence[str]) -> tuple[str, ...]:
    if isinstance(benchmarks, str):
        raise InvalidOptions("benchmarks: expected a list of names, got one string")
    names = tuple(benchmarks)
    if not names:
        raise InvalidOptions("no benchmark named: give one or more, or an eval-set file")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InvalidOptions(f"benchmark named twice: {', '.join(repeated)}")
    return names


def _set_rows(result: EvaluateResult) -> list[SetRow]:
    """Each model's default-variant overall row of one benchmark as a summary row, with the
    benchmark's published figures."""
    rows = {row.model: row for row in result.overall if row.variant == "default"}
    circular = {
        row.model: row for row in result.circular if row.variant == "default" and not row.group
    }
    mme = {row.model: row for row in result.mme if row.variant == "default"}
    return [
        SetRow(
            result.benchmark,
            model,
            rows.get(model),
            result.keyed_items,
            _circular_headline(circular.get(model)) + _mme_headline(mme.get(model)),
        )
        for model in result.models
    ]


def _circular_headline(row: CircularRow | None) -> tuple[Headline, ...]:
    if row is None:
        return ()
    if row.incomplete or row.unasked:  # a figure over part of the questions is not the score
        questions = row.questions * row.epochs
        why = f"{row.incomplete + row.unasked} of {questions} questions not answered in every copy"
        return (Headline("CircularEval %", None, why),)
    value = 100 * row.circular_accuracy
    return (Headline("CircularEval %", value, f"{value:.1f}"),)


def _mme_headline(row: MMERow | None) -> tuple[Headline, ...]:
    if row is None:
        return ()
    out = []
    for name, categories in MME_TOTALS.items():
        total = row.total(name)
        metric = f"MME {name} (of {200 * len(categories)})"
        out.append(Headline(metric, total.value, total.shown()))
    return tuple(out)


_SETTINGS = {f.name for f in fields(GenerationSettings)}
_OPTIONS = {f.name for f in fields(EvaluateOptions)} - {"models", "settings"}


def read_eval_set(path: Path) -> EvalSet:
    """The benchmarks and options an eval-set TOML file names. InvalidOptions naming the file
    and the key for anything else: an unknown key, a wrong type, a missing list."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidOptions(f"{path}: cannot read the eval-set file ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidOptions(f"{path}: not a TOML eval-set file ({exc})") from None
    unknown = sorted(set(data) - {"benchmarks", "models", "settings"})
    if unknown:
        raise InvalidOptions(
            f"{path}: unknown key {unknown[0]!r}; expected benchmarks, models and [settings]"
        )
    benchmarks = _names(path, data, "benchmarks")
    models = _names(path, data, "models")
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise InvalidOptions(f"{path}: [settings] must be a table of evaluate's options")
    return EvalSet(benchmarks, _options(path, models, settings))


def _names(path: Path, data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise InvalidOptions(f"{path}: {key!r} must be a non-empty list of names")
    return tuple(value)


def _options(path: Path, models: tuple[str, ...], settings: dict[str, Any]) -> EvaluateOptions:
    unknown = sorted(set(settings) - _OPTIONS - _SETTINGS)
    if unknown:
        known = ", ".join(sorted(_OPTIONS | _SETTINGS))
        raise InvalidOptions(f"{path}: unknown setting {unknown[0]!r}; evaluate takes {known}")
    given = {k: v for k, v in settings.items() if k in _OPTIONS}
    generation = {k: v for k, v in settings.items() if k in _SETTINGS}
    try:
        options = EvaluateOptions(models=models, **given)
        return replace(options, settings=GenerationSettings(**generation))
    except (TypeError, ValueError) as exc:
        raise InvalidOptions(f"{path}: [settings]: {exc}") from None
