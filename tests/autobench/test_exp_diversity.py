"""The diversity experiment: per-group figures by hand, intervals, and the graph's effect."""

import math

import pytest
from topic_fakes import TopicBiasedExaminer

from lvlmbench.autobench._backend import PlannedAspect
from lvlmbench.autobench.exp_diversity import (
    bootstrap_mean,
    diversity_experiment,
    group_figures,
    summarise,
)
from lvlmbench.models import ModelClient


def test_group_figures_worked_by_hand():
    rounds = [
        ("city", ["a", "b", "c"]),
        ("City", ["a", "d", "e"]),  # same topic once normalised
        ("forest", ["f", "g", "h"]),
        ("city", ["a", "b", "i"]),
    ]
    g = group_figures("left/right", "easy", "graph", rounds)
    assert g.descriptions == 4 and g.distinct_topics == 2
    # 3/4·log2(4/3) + 1/4·log2(4)
    assert g.topic_entropy == pytest.approx(0.75 * math.log2(4 / 3) + 0.5)
    assert g.top_topic_share == 0.75
    assert g.keyword_uniqueness == 9 / 12  # a ×3, b ×2, the other seven once


def test_empty_group_has_defined_figures():
    g = group_figures("x", "hard", "no graph", [])
    assert (g.distinct_topics, g.topic_entropy, g.top_topic_share) == (0, 0.0, 0.0)


def test_bootstrap_interval_brackets_the_mean_and_collapses_on_constant_values():
    spread = bootstrap_mean([1.0, 2.0, 3.0, 10.0])
    assert spread.mean == 4.0 and spread.low < 4.0 < spread.high and spread.n == 4
    assert spread.low >= 1.0 and spread.high <= 10.0
    flat = bootstrap_mean([2.0, 2.0, 2.0])
    assert (flat.low, flat.mean, flat.high) == (2.0, 2.0, 2.0)
    assert bootstrap_mean([]).n == 0


def test_difference_is_paired_per_group():
    with_graph = [
        group_figures("a", "easy", "graph", [("x", ["1", "2", "3"]), ("y", ["4", "5", "6"])]),
        group_figures("b", "easy", "graph", [("x", ["1", "2", "3"]), ("x", ["1", "2", "3"])]),
    ]
    without = [
        group_figures("a", "easy", "no graph", [("x", ["1", "2", "3"]), ("x", ["1", "2", "3"])]),
        group_figures("b", "easy", "no graph", [("x", ["1", "2", "3"]), ("x", ["1", "2", "3"])]),
    ]
    summary = summarise(with_graph + without)
    assert summary["graph"]["distinct_topics"].mean == 1.5
    assert summary["no graph"]["distinct_topics"].mean == 1.0
    assert summary["difference"]["distinct_topics"].mean == 0.5
    assert summary["difference"]["top_topic_share"].mean == pytest.approx(-0.25)


ASPECTS = [
    PlannedAspect(capability="spatial", general="position", fine=f, guideline="Be clear.")
    for f in ("left and right", "above and below", "near and far")
]


async def test_graph_moves_a_topic_biased_examiner_off_its_theme():
    model = TopicBiasedExaminer(bias=0.8)
    result = await diversity_experiment(ModelClient(model, None), ASPECTS, ["easy", "hard"], 10)
    assert len(result.groups) == 3 * 2 * 2
    graph, plain = result.summary["graph"], result.summary["no graph"]
    assert graph["distinct_topics"].mean >= plain["distinct_topics"].mean + 3
    assert graph["topic_entropy"].mean > plain["topic_entropy"].mean + 1.0
    assert graph["top_topic_share"].mean < plain["top_topic_share"].mean
    diff = result.summary["difference"]["distinct_topics"]
    assert diff.low > 0  # the interval of the paired difference excludes no effect
    # Round 1 has no bans in either condition: the same cached sample starts both.
    firsts = {(g.aspect, g.level, g.condition): g.topics[0] for g in result.groups}
    for a in ASPECTS:
        for level in ("easy", "hard"):
            assert firsts[(a.fine, level, "graph")] == firsts[(a.fine, level, "no graph")]


async def test_one_round_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        await diversity_experiment(ModelClient(TopicBiasedExaminer(), None), ASPECTS, ["easy"], 1)
