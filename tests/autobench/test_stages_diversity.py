"""The semantic graph on its own, and the diversity figures."""

import math

import pytest

from lvlmbench.autobench.diversity import SemanticGraph, diversity_report, normalise_word


def test_graph_edges_link_topic_to_keywords_and_cooccurring_keywords():
    graph = SemanticGraph(enabled=False)
    graph.add_round("City", ["Street", "car", "car", "Traffic light"])
    g = graph.graph
    assert set(g.nodes) == {"city", "street", "car", "traffic light"}
    assert g.has_edge("city", "car") and g.has_edge("street", "traffic light")
    assert g.number_of_edges() == 6  # a 4-clique: repeated "car" counted once
    graph.add_round("harbour", ["car", "boat", "street"])
    assert g["car"]["street"]["weight"] == 2


def test_exclusions_follow_f_of_i_accumulate_and_skip_banned_nodes():
    graph = SemanticGraph(bans="accumulate")
    assert graph.add_round("city", ["street", "car"]) == ["city"]
    newly = graph.add_round("city", ["car", "bus"])  # city reused but already banned
    assert "city" not in newly and len(newly) == 2
    assert newly[0] == "car"  # degree 3 (city, street, bus), more than the others
    assert graph.banned == ["city", *newly]
    assert len(graph.add_round("sea", ["boat", "wave"])) == 3
    assert len(graph.banned) == 6
    assert graph.is_banned("CAR") and not graph.is_banned("plane")


def test_f_larger_than_the_graph_bans_everything_once():
    graph = SemanticGraph(lambda i: 100, bans="accumulate")
    graph.add_round("a", ["b", "c"])
    assert sorted(graph.banned) == ["a", "b", "c"]
    assert graph.add_round("a", ["b", "d"]) == ["d"]


def test_graph_round_trips_through_plain_data():
    graph = SemanticGraph()
    for topic in ("city", "farm", "moon"):
        graph.add_round(topic, ["x", topic + " item", "y"])
    copy = SemanticGraph.from_dict(graph.to_dict())
    assert copy.banned == graph.banned and copy.rounds == 3
    assert copy.add_round("sea", ["p", "q", "r"]) == graph.add_round("sea", ["p", "q", "r"])


def test_per_round_exclusions_are_recomputed_and_keep_the_hub():
    graph = SemanticGraph()  # the default reading: f(i) top nodes after round i, not a union
    assert graph.add_round("city", ["street", "car"]) == ["city"]
    # city and car both reach degree 3 and weight 4; city was the topic twice, so it leads.
    assert graph.add_round("city", ["car", "bus"]) == ["car"]
    assert graph.banned == ["city", "car"]
    # f(3) = 3 words, not 1 + 2 + 3: the two hubs stay, then the degree-2 topic "sea".
    assert graph.add_round("sea", ["boat", "wave"]) == ["sea"]
    assert graph.banned == ["city", "car", "sea"]


def test_stored_graph_keeps_its_ban_reading():
    old = SemanticGraph(bans="accumulate")
    old.add_round("city", ["a", "b"])
    data = old.to_dict()
    assert SemanticGraph.from_dict(data).bans == "accumulate"
    data.pop("bans")  # stored before the reading was recorded: those accumulated
    assert SemanticGraph.from_dict(data).bans == "accumulate"
    assert SemanticGraph.from_dict(SemanticGraph().to_dict()).bans == "per-round"


def test_normalise_word():
    assert normalise_word("  Traffic-Light! ") == "traffic light"


def test_exact_figures_on_a_tiny_input():
    figures = diversity_report(["red cat", "red dog"], topics=["x", "x", "y", "y"])
    assert figures.count == 2
    assert figures.distinct_1 == pytest.approx(3 / 4)
    assert figures.distinct_2 == pytest.approx(1.0)
    assert figures.mean_jaccard == pytest.approx(1 / 3)
    assert figures.topic_entropy == pytest.approx(1.0)


def test_varied_texts_score_as_more_diverse_than_repeated_ones():
    repeated = ["A busy city street with cars and tall buildings at noon."] * 5
    varied = [
        "A busy city street with cars and tall buildings at noon.",
        "Three brown cows graze beside a red barn under a cloudy sky.",
        "A wooden rowing boat floats on a calm lake at sunset.",
        "Two cups of coffee and a croissant sit on a marble table.",
        "A snowy mountain cabin with smoke rising from its chimney.",
    ]
    low = diversity_report(repeated, topics=["city"] * 5)
    high = diversity_report(varied, topics=["city", "farm", "lake", "cafe", "mountain"])
    assert high.distinct_1 > low.distinct_1
    assert high.distinct_2 > low.distinct_2
    assert high.mean_jaccard is not None and low.mean_jaccard == pytest.approx(1.0)
    assert high.mean_jaccard < 0.2
    assert low.topic_entropy == 0.0
    assert high.topic_entropy == pytest.approx(math.log2(5))


def test_degenerate_inputs_have_defined_figures():
    empty = diversity_report([])
    assert (empty.distinct_1, empty.distinct_2, empty.mean_jaccard) == (0.0, 0.0, None)
    assert empty.topic_entropy is None
    assert diversity_report(["one text"]).mean_jaccard is None
