"""What every text metric shares: the interface, the registry and the missing-extra error.

A metric scores candidate texts against reference texts. Scoring is two steps so that
corpus-level metrics stay independent of which responses happen to be scored in one run:
:meth:`Metric.fit` sees every reference of the benchmark once (CIDEr's document frequencies),
then :meth:`Metric.score` scores any subset of (candidate, reference) pairs. Every metric is
deterministic: the same fitted references and the same pair always give the same score (scores
are rounded to 6 decimals, so tiny float noise from batching never reaches the store).
"""

from __future__ import annotations

import importlib
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.registry import Registry

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "Metric",
    "MetricInfo",
    "MetricUnavailable",
    "available_metrics",
    "load_metric",
    "register_metric",
    "tokens",
]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits, with an apostrophe suffix kept)."""
    return _WORD.findall(text.lower())


class MetricUnavailable(RuntimeError):
    """A metric whose dependencies (a pip extra or a system package) are not installed.

    The message names the fix, e.g. ``pip install 'lvlmbench[metrics]'``."""


class Metric(ABC):
    """A text metric: ``fit`` on the corpus's references, then ``score`` pairs."""

    name: str = ""
    """Short name used in the store (``metric:<name>``) and on the command line."""
    higher_is_better: bool = True

    def fit(self, references: Sequence[str]) -> None:  # noqa: B027 - optional hook
        """See every reference of the corpus once (a no-op for sentence-level metrics)."""

    @abstractmethod
    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        """One score per (candidate, reference) pair, in order."""


@dataclass(frozen=True)
class MetricInfo:
    """Where a metric lives and what it needs."""

    module: str
    cls: str
    extra: str | None
    """pip extra with its dependencies (None: core)."""
    scale: str
    """The range of its scores, for tables."""
    summary: str
    probe: bool = False
    """A probe, not a quality metric: it measures a bias (length) or the floor (random), and
    tables and charts tag it so nobody reads it as a score."""


METRICS: Registry[MetricInfo] = Registry("metric")
"""Every metric by name (:func:`register_metric` adds one)."""


def register_metric(name: str, info: MetricInfo) -> None:
    """Make ``name`` a metric: ``lvlmbench metrics --metric name`` and ``load_metric(name)``."""
    METRICS.add(name, info, help=info.summary)


_BUILTIN: dict[str, MetricInfo] = {
    "bleu4": MetricInfo(
        "lvlmbench.judging.metrics.text", "Bleu4", "metrics", "0-100", "sacrebleu sentence BLEU-4"
    ),
    "rougeL": MetricInfo(
        "lvlmbench.judging.metrics.text", "RougeL", "metrics", "0-1", "ROUGE-L F-measure"
    ),
    "meteor": MetricInfo(
        "lvlmbench.judging.metrics.meteor",
        "Meteor",
        "metrics",
        "0-1",
        "METEOR (nltk; WordNet 3.0 from Debian's wordnet-base, offline)",
    ),
    "cider": MetricInfo(
        "lvlmbench.judging.metrics.text",
        "Cider",
        "metrics",
        "0-10",
        "CIDEr-D (pycocoevalcap) with IDF over the benchmark's references",
    ),
    "bertscore": MetricInfo(
        "lvlmbench.judging.metrics.bertscore",
        "BertScore",
        "bertscore",
        "0-1",
        "BERTScore F1, greedy token matching with all-MiniLM-L6-v2",
    ),
    "length": MetricInfo(
        "lvlmbench.judging.metrics.simple",
        "Length",
        None,
        "tokens",
        "non-whitespace tokens in the answer (length-bias probe)",
        probe=True,
    ),
    "random": MetricInfo(
        "lvlmbench.judging.metrics.simple",
        "RandomMetric",
        None,
        "0-1",
        "seeded uniform draw per pair (the floor)",
        probe=True,
    ),
}
for _name, _info in _BUILTIN.items():
    register_metric(_name, _info)

DEFAULT_METRICS = ("bleu4", "rougeL", "meteor", "cider", "bertscore", "length", "random")


def load_metric(name: str, **options: object) -> Metric:
    """A metric by name. Raises ``ValueError`` for an unknown name and
    :class:`MetricUnavailable` (with the install hint) when its extra is missing."""
    info = METRICS.get_or_raise(name)  # UnknownName (a ValueError) naming the known ones
    try:
        module = importlib.import_module(info.module)
        metric: Metric = getattr(module, info.cls)(**options)
    except ImportError as exc:
        extra = info.extra or "metrics"
        raise MetricUnavailable(
            f"metric {name!r} needs the '{extra}' extra ({exc.name or exc} is missing): "
            f"pip install 'lvlmbench[{extra}]'"
        ) from None
    return metric


def available_metrics(names: Sequence[str] = DEFAULT_METRICS) -> tuple[list[str], dict[str, str]]:
    """(metrics in ``names`` that can run here, {metric: why not} for the others).

    Only imports are checked (cheap); a metric's data (WordNet, model files) is checked when
    it is loaded."""
    ok: list[str] = []
    missing: dict[str, str] = {}
    for name in names:
        info = METRICS.get(name)
        if info is None:
            missing[name] = f"unknown metric; known: {', '.join(METRICS)}"
            continue
        try:
            importlib.import_module(info.module)
        except ImportError as exc:
            missing[name] = (
                f"needs the '{info.extra}' extra ({exc.name or exc} is missing): "
                f"pip install 'lvlmbench[{info.extra}]'"
            )
            continue
        ok.append(name)
    return ok, missing
