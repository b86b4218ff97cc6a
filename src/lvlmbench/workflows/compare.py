"""The compare use case: "is A better than B on this benchmark, and in each group?".

For each pair of models (or each model against ``baseline``) and each group of ``by``, the
difference A − B on the items both answered (items only one answered are counted, never
compared), with a paired, cluster-aware interval and p-value from :mod:`lvlmbench.stats`: the
paired clustered t for a mean difference (accuracy, judge scores, win rates), McNemar's test
where items stand alone and scores are 0/1, a paired cluster bootstrap for a rating difference.
Every p-value of the table is adjusted together (Holm by default), because a table of many
comparisons finds some "significant" noise otherwise. With ``difference``, each row also says
how many items the comparison needs to detect that difference
(:func:`lvlmbench.stats.items_needed`) and how many more the benchmark would need.
``lvlmbench compare`` / ``lvlmbench power``, ``api.compare``, the report's Comparisons section
and the web page all call :func:`compare`, so they show the same numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from lvlmbench.choice.accuracy import available_facets, facet_value
from lvlmbench.models import RegistryError, model_identity
from lvlmbench.stats import (
    ADJUSTMENTS,
    ALL,
    MCNEMAR_CHI2,
    MCNEMAR_EXACT,
    Adjustment,
    Comparison,
    ComparisonTable,
    NotEnoughClusters,
    adjust_p_values,
    cluster_keys,
    items_needed,
    paired_difference,
)
from lvlmbench.store import Store, did_you_mean, require_benchmark
from lvlmbench.workflows._compare_ratings import rating_difference
from lvlmbench.workflows._compare_scores import ItemScores, read_scores
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._evaluate_options import parse_groupings
from lvlmbench.workflows._stores import StoreLike, opened_store

__all__ = [
    "CompareOptions",
    "CompareResult",
    "Comparison",
    "against_the_best",
    "compare",
    "compare_models",
    "compare_pairs",
    "stored_players",
]

CompareResult = ComparisonTable
"""What :func:`compare` returns."""


@dataclass(frozen=True)
class CompareOptions:
    """Every option of ``lvlmbench compare`` (and ``power``), with the command's defaults."""

    models: tuple[str, ...]
    by: tuple[str, ...] = ()
    """Facets to compare within (difficulty, general_aspect, category, ...), besides overall."""
    baseline: str | None = None
    """Compare every other model with this one (None: every pair of models)."""
    adjust: str = "holm"
    """How the table's p-values are adjusted together: holm, bh or none."""
    metric: str | None = None
    """accuracy, score, win-rate or bradley-terry (None: the benchmark's own)."""
    judge: str | None = None
    """The judge of a judged metric (None: the only one with rows)."""
    difference: float | None = None
    """With it, each row's power plan: items needed to detect this difference."""
    alpha: float = 0.05
    power: float = 0.8
    resamples: int = 2000
    seed: int = 0
    variant: str = "default"


def _adjustment(value: str) -> Adjustment:
    for name in ADJUSTMENTS:
        if value == name:
            return name
    raise InvalidOptions(f"--adjust {value!r}: choose from {', '.join(ADJUSTMENTS)}")


def _check(options: CompareOptions) -> None:
    if options.difference is not None and options.difference <= 0:
        raise InvalidOptions(f"--difference must be positive, got {options.difference}")
    if not 0 < options.alpha < 1 or not 0 < options.power < 1:
        raise InvalidOptions("--alpha and --power must be strictly between 0 and 1")
    if options.resamples < 100:
        raise InvalidOptions(f"--resamples {options.resamples}: expected at least 100")


def _stored_name(name: str, players: set[str], benchmark: str, metric: str) -> str:
    """``name`` as the store holds it (a spec's identity); InvalidOptions for a model with no
    scores, never a row of zeros."""
    if name in players:
        return name
    try:
        identity = model_identity(name)
    except RegistryError:
        identity = name
    if identity in players:
        return identity
    hint = did_you_mean(name, sorted(players))
    raise InvalidOptions(
        f"--model {name!r} has no scored {metric} on {benchmark!r}{hint}; models with scores: "
        f"{', '.join(sorted(players)) or 'none'}"
    )


def compare_pairs(models: Sequence[str], baseline: str | None) -> list[tuple[str, str]]:
    """(A, B) of each comparison: every model against ``baseline``, else every pair in the
    order given."""
    if baseline is not None:
        return [(m, baseline) for m in models if m != baseline]
    return list(itertools.combinations(models, 2))


def _rating_row(scores: ItemScores, ids: set[str], pair: tuple[str, str], at: _Where) -> Comparison:
    a, b = pair
    matches = [m for m in scores.matches if m[3] in ids]
    players = {p for m in matches for p in m[:2]}
    if a not in players or b not in players:
        missing = a if a not in players else b
        return _empty(pair, at.group, f"{missing} has no scored match here")
    try:
        paired, ratings = rating_difference(
            [m[:3] for m in matches],
            [at.clusters[m[3]] for m in matches],
            pair,
            cluster=at.cluster,
            resamples=at.options.resamples,
            seed=at.options.seed,
        )
    except NotEnoughClusters:
        return _empty(pair, at.group, f"a single {at.cluster}: no interval")
    return Comparison(a, b, at.group, ratings[a], ratings[b], paired, None, None, None)


@dataclass(frozen=True)
class _Where:
    """What every row of one group shares."""

    group: tuple[str, ...]
    clusters: dict[str, str]
    cluster: str
    options: CompareOptions


def _empty(pair: tuple[str, str], group: tuple[str, ...], note: str, *only: int) -> Comparison:
    counts = (*only, 0, 0)
    return Comparison(*pair, group, None, None, None, None, None, None, note, counts[0], counts[1])


def _keyed(scores: dict[str, float]) -> dict[Hashable, float]:
    # The same mapping, its keys typed as the statistics take them (Mapping keys are invariant).
    return {item: value for item, value in scores.items()}


def _mean_row(scores: ItemScores, ids: set[str], pair: tuple[str, str], at: _Where) -> Comparison:
    a, b = pair
    mine_a = {i: v for i, v in scores.scores.get(a, {}).items() if i in ids}
    mine_b = {i: v for i, v in scores.scores.get(b, {}).items() if i in ids}
    common = [i for i in mine_a if i in mine_b]
    only_a, only_b = len(mine_a) - len(common), len(mine_b) - len(common)
    if not common:
        return _empty(pair, at.group, "no item both answered", only_a, only_b)
    options = at.options
    try:
        paired = paired_difference(
            _keyed(mine_a),
            _keyed(mine_b),
            {i: at.clusters[i] for i in common},
            cluster=at.cluster,
            resamples=options.resamples,
            seed=options.seed,
            # A mean difference gets the analytic clustered t (G − 1 df), as every accuracy
            # interval does: in bench/bench_stats.py (30 clusters, ICC 0.5) its false-positive
            # rate is 5.8 % where the paired cluster bootstrap's is 6.2 % (target 4-6 %).
            test="t",
        )
    except NotEnoughClusters:
        return _empty(pair, at.group, f"a single {at.cluster}: no interval", only_a, only_b)
    diffs = [mine_a[i] - mine_b[i] for i in common]
    discordant = None
    if paired.test in (MCNEMAR_EXACT, MCNEMAR_CHI2):
        discordant = (sum(d > 0 for d in diffs), sum(d < 0 for d in diffs))
    plan = None
    if options.difference is not None:
        plan = items_needed(
            diffs,
            [at.clusters[i] for i in common],
            difference=options.difference,
            alpha=options.alpha,
            power=options.power,
        )
    mean_a = sum(mine_a[i] for i in common) / len(common)
    mean_b = sum(mine_b[i] for i in common) / len(common)
    return Comparison(
        a, b, at.group, mean_a, mean_b, paired, None, discordant, plan, None, only_a, only_b
    )


def _groups(scores: ItemScores, by: Sequence[str]) -> list[tuple[tuple[str, ...], set[str]]]:
    """Every item as the group ``ALL``, then each group of ``by`` (sorted)."""
    out: list[tuple[tuple[str, ...], set[str]]] = [(ALL, set(scores.items))]
    if by:
        grouped: dict[tuple[str, ...], set[str]] = {}
        for item_id, item in scores.items.items():
            grouped.setdefault(tuple(facet_value(item, f) for f in by), set()).add(item_id)
        out.extend(sorted(grouped.items()))
    return out


def _models(
    scores: ItemScores, benchmark: str, options: CompareOptions
) -> tuple[list[str], str | None]:
    players = scores.players()
    names: list[str] = []
    for given in options.models:
        name = _stored_name(given, players, benchmark, scores.metric)
        if name not in names:
            names.append(name)
    baseline = None
    if options.baseline is not None:
        baseline = _stored_name(options.baseline, players, benchmark, scores.metric)
        if baseline not in names:
            names.append(baseline)
    if len(names) < 2:
        raise InvalidOptions("compare needs at least two different models (-m A -m B)")
    return names, baseline


def _adjusted(rows: list[Comparison], method: Adjustment) -> tuple[Comparison, ...]:
    tested = [i for i, row in enumerate(rows) if row.paired is not None]
    adjusted = adjust_p_values([rows[i].paired.p_value for i in tested], method)  # type: ignore[union-attr]
    out = list(rows)
    for i, p_value in zip(tested, adjusted, strict=True):
        out[i] = replace(rows[i], adjusted_p=p_value)
    return tuple(out)


def compare(store: Store, benchmark: str, options: CompareOptions) -> CompareResult:
    """The comparison table; InvalidOptions for bad options, a model without scores, fewer
    than two models, or a pair with no item both answered."""
    _check(options)
    method = _adjustment(options.adjust)
    require_benchmark(store, benchmark)
    scores = read_scores(store, benchmark, options.metric, options.judge, options.variant)
    models, baseline = _models(scores, benchmark, options)
    by = parse_groupings(options.by, available_facets(scores.items.values())) if options.by else []
    cluster, keys = cluster_keys(list(scores.items.values()))
    clusters = dict(zip(scores.items, keys, strict=True))
    make = _rating_row if scores.metric == "bradley-terry" else _mean_row
    rows: list[Comparison] = []
    for pair in compare_pairs(models, baseline):
        for group, ids in _groups(scores, by):
            row = make(scores, ids, pair, _Where(group, clusters, cluster, options))
            if group == ALL and row.paired is None:
                raise InvalidOptions(
                    f"cannot compare {pair[0]} with {pair[1]} on {benchmark!r}: {row.note}"
                )
            rows.append(row)
    return CompareResult(
        benchmark,
        scores.metric,
        scores.judge,
        cluster,
        tuple(by),
        baseline,
        method,
        tuple(models),
        _adjusted(rows, method),
        options.alpha,
        options.power,
    )


def compare_models(
    benchmark: str,
    models: Sequence[str],
    *,
    store: StoreLike = None,
    by: Sequence[str] = (),
    baseline: str | None = None,
    adjust: str = "holm",
    metric: str | None = None,
    judge: str | None = None,
    difference: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    resamples: int = 2000,
    seed: int = 0,
) -> CompareResult:
    """``lvlmbench compare`` (and, with ``difference``, ``lvlmbench power``) in Python, as
    ``api.compare``: the same use case, options and defaults (:class:`CompareOptions`). Reads
    only; InvalidOptions (a ValueError) for a model without scores, a single model, or a pair
    with no item in common."""
    options = CompareOptions(
        tuple(models),
        tuple(by),
        baseline,
        adjust,
        metric,
        judge,
        difference,
        alpha,
        power,
        resamples,
        seed,
    )
    with opened_store(store) as opened:
        return compare(opened, benchmark, options)


def against_the_best(
    store: Store, benchmark: str, baseline: str | None = None
) -> ComparisonTable | None:
    """The report's and the web page's table: every model against ``baseline`` (default: the
    model with the highest mean), under the benchmark's own metric, overall and per difficulty
    where items have several; None where fewer than two models have scores, or nothing (or no
    single judge) can be compared."""
    try:
        scores = read_scores(store, benchmark, None, None, "default")
    except InvalidOptions:
        return None
    players = sorted(scores.players())
    if len(players) < 2:
        return None
    means = {m: sum(scores.scores[m].values()) / len(scores.scores[m]) for m in players}
    best = baseline if baseline in means else min(players, key=lambda m: (-means[m], m))
    levels = {facet_value(item, "difficulty") for item in scores.items.values()}
    by = ("difficulty",) if len(levels - {"-"}) > 1 else ()
    try:
        return compare(store, benchmark, CompareOptions(tuple(players), by, best))
    except InvalidOptions:
        return None


def stored_players(store: Store, benchmark: str) -> list[str]:
    """The models with scores under the benchmark's own metric (none when nothing compares)."""
    try:
        return sorted(read_scores(store, benchmark, None, None, "default").players())
    except InvalidOptions:
        return []
