"""The diversity experiment (the paper's Figures 10–12): descriptions with and without the graph.

Both conditions write the same groups — one (fine aspect, level) pair, ``count`` rounds each —
from the same seed, so round 1 of every group is the same sample in both and every later round
differs only by what the graph excluded. Pooled distinct-n hardly moves when a biased examiner
keeps returning to one theme (the words around the topic vary anyway), so the figures are taken
per group, where the theme shows: distinct topics, topic entropy, the share of the most common
topic and keyword uniqueness. Each figure's mean over groups carries a bootstrap interval, and
so does the paired difference (with − without), which is what the graph is for.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from lvlmbench.autobench._backend import PlannedAspect
from lvlmbench.autobench.descriptions import write_descriptions
from lvlmbench.autobench.diversity import BanPolicy, SemanticGraph, linear_exclusions
from lvlmbench.autobench.diversity import normalise_word as _word
from lvlmbench.models import ModelClient

__all__ = [
    "FIGURES",
    "DiversityComparison",
    "GroupFigures",
    "MeanInterval",
    "bootstrap_mean",
    "diversity_experiment",
    "group_figures",
    "summarise",
]

FIGURES = ("distinct_topics", "topic_entropy", "top_topic_share", "keyword_uniqueness")
"""Per-group figures, in display order (the first two and the last: higher = more diverse)."""


class GroupFigures(BaseModel):
    """How varied one group's descriptions are."""

    aspect: str
    level: str
    condition: str
    """"graph" or "no graph"."""
    descriptions: int
    """Rounds that produced a description (failed rounds are left out)."""
    distinct_topics: int
    topic_entropy: float
    """Shannon entropy of the topics, in bits."""
    top_topic_share: float
    """Share of the most common topic (lower = more diverse)."""
    keyword_uniqueness: float
    """Distinct keywords / keywords used."""
    topics: list[str]


class MeanInterval(BaseModel):
    """A mean over groups with a 95% percentile-bootstrap interval."""

    mean: float
    low: float
    high: float
    n: int


class DiversityComparison(BaseModel):
    """The experiment's result: per-group figures and their summaries per condition."""

    groups: list[GroupFigures]
    summary: dict[str, dict[str, MeanInterval]]
    """condition ("graph", "no graph", "difference") → figure → mean and interval."""
    settings: dict[str, Any]


def group_figures(
    aspect: str, level: str, condition: str, rounds: Sequence[tuple[str, Sequence[str]]]
) -> GroupFigures:
    """Figures of one group from its (topic, keywords) rounds."""
    topics = [_word(t) for t, _ in rounds]
    keywords = [_word(k) for _, words in rounds for k in words]
    counts = Counter(topics)
    total = len(topics)
    entropy = sum(c / total * math.log2(total / c) for c in counts.values()) if total else 0.0
    return GroupFigures(
        aspect=aspect,
        level=level,
        condition=condition,
        descriptions=total,
        distinct_topics=len(counts),
        topic_entropy=entropy,
        top_topic_share=max(counts.values()) / total if total else 0.0,
        keyword_uniqueness=len(set(keywords)) / len(keywords) if keywords else 0.0,
        topics=topics,
    )


def bootstrap_mean(values: Sequence[float], seed: int = 0, draws: int = 2000) -> MeanInterval:
    """Mean of ``values`` and a 95% percentile-bootstrap interval (seeded: reproducible).

    Groups are few (a handful of aspects × levels), so a bootstrap over groups is used rather
    than a normal approximation that would assume far more of them.
    """
    if not values:
        return MeanInterval(mean=0.0, low=0.0, high=0.0, n=0)
    mean = statistics.fmean(values)
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(draws))
    low, high = means[int(0.025 * draws)], means[min(draws - 1, int(0.975 * draws))]
    return MeanInterval(mean=mean, low=min(low, mean), high=max(high, mean), n=len(values))


def summarise(groups: Sequence[GroupFigures], seed: int = 0) -> dict[str, dict[str, MeanInterval]]:
    """Per condition and figure, the mean over groups; plus the paired difference."""
    by: dict[str, dict[tuple[str, str], GroupFigures]] = {}
    for g in groups:
        by.setdefault(g.condition, {})[(g.aspect, g.level)] = g
    summary = {
        condition: {
            name: bootstrap_mean([float(getattr(g, name)) for g in rows.values()], seed)
            for name in FIGURES
        }
        for condition, rows in by.items()
    }
    with_graph, without = by.get("graph", {}), by.get("no graph", {})
    paired = [key for key in with_graph if key in without]
    if paired:
        summary["difference"] = {
            name: bootstrap_mean(
                [
                    float(getattr(with_graph[k], name)) - float(getattr(without[k], name))
                    for k in paired
                ],
                seed,
            )
            for name in FIGURES
        }
    return summary


async def diversity_experiment(
    examiner: ModelClient,
    aspects: Sequence[PlannedAspect],
    levels: Sequence[str],
    count: int,
    seed: int = 0,
    f: Callable[[int], int] = linear_exclusions,
    bans: BanPolicy = "per-round",
) -> DiversityComparison:
    """Write ``count`` descriptions per (aspect, level) with and without the semantic graph.

    ``f`` is the exclusion schedule (the paper's f(i) = i by default). Every call goes through
    ``examiner`` and is cached, so a re-run (or a generation that wrote the same groups) pays
    nothing twice.
    """
    if count < 2:
        raise ValueError(f"count {count}: at least 2 rounds are needed for the graph to act")
    groups: list[GroupFigures] = []
    for aspect in aspects:
        for level in levels:
            for condition, enabled in (("graph", True), ("no graph", False)):
                graph = SemanticGraph(f, enabled=enabled, bans=bans)
                results = await write_descriptions(
                    examiner,
                    aspect.capability,
                    aspect.general,
                    aspect.fine,
                    aspect.guideline,
                    level,
                    count,
                    graph,
                    seed=seed,
                )
                rounds = [(r.value.topic, r.value.keywords) for r in results if r.value]
                groups.append(group_figures(aspect.fine, level, condition, rounds))
    settings = {"count": count, "seed": seed, "levels": list(levels), "bans": bans}
    return DiversityComparison(groups=groups, summary=summarise(groups, seed), settings=settings)
