"""Text metrics on hand-checkable cases (BLEU-4, ROUGE-L, METEOR, CIDEr, length, random)."""

import math
import os
import sys

import pytest

from lvlmbench.judging.metrics import (
    MetricUnavailable,
    available_metrics,
    load_metric,
    tokens,
)

pytest.importorskip("sacrebleu")
pytest.importorskip("rouge_score")
pytest.importorskip("pycocoevalcap")


def _score(name, candidate, reference):
    return load_metric(name).score([candidate], [reference])[0]


def test_tokens_lowercase_words():
    assert tokens("The Cat's hat, 2 RED!") == ["the", "cat's", "hat", "2", "red"]


def test_bleu4_matches_the_hand_computed_value():
    # 1-4-gram precisions 5/6, 3/5, 2/4, 1/3; equal lengths, so no brevity penalty.
    expected = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    value = _score("bleu4", "the cat sat on the mat", "the cat sat on a mat")
    assert value == pytest.approx(expected, abs=1e-4)  # 53.7285


def test_bleu4_identical_is_100_and_disjoint_is_0():
    text = "a small red ball lies next to the blue box"
    assert _score("bleu4", text, text) == pytest.approx(100.0)
    assert _score("bleu4", "green triangles everywhere", text) == 0.0
    assert _score("bleu4", "", text) == 0.0


def test_rouge_l_textbook_example():
    # Lin (2004): reference "police killed the gunman"; "the gunman kill police" shares the
    # subsequence "the gunman" only: R = P = 2/4, F = 0.5.
    assert _score("rougeL", "the gunman kill police", "police killed the gunman") == 0.5
    assert _score("rougeL", "police killed the gunman", "police killed the gunman") == 1.0


def test_cider_ranks_the_matching_caption_first():
    references = [
        "a red ball on a wooden table in a kitchen",
        "two dogs run across a green field",
        "a blue car parked next to a tall tree",
    ]
    metric = load_metric("cider")
    metric.fit(references)
    good, wrong = metric.score(
        ["a red ball on the wooden table", "two dogs run across a green field"],
        [references[0], references[0]],
    )
    assert good > wrong >= 0.0
    identical = metric.score([references[1]], [references[1]])[0]
    assert identical == pytest.approx(10.0, abs=1e-4)


def test_cider_score_does_not_depend_on_the_batch():
    references = ["a red ball on a table", "two dogs in a field", "a car by a tree"]
    metric = load_metric("cider")
    metric.fit(references)
    alone = metric.score(["a red ball"], [references[0]])
    together = metric.score(["a red ball", "dogs"], [references[0], references[1]])
    assert alone[0] == together[0]


def test_length_counts_non_whitespace_tokens():
    assert load_metric("length").score(["one two  three\nfour", ""], ["x", "y"]) == [4.0, 0.0]


def test_random_is_seeded_and_in_range():
    first = load_metric("random").score(["a", "b", "c"], ["r", "r", "r"])
    again = load_metric("random").score(["c"], ["r"])
    other_seed = load_metric("random", seed=1).score(["a", "b", "c"], ["r", "r", "r"])
    assert all(0.0 <= v < 1.0 for v in first)
    assert again[0] == first[2]
    assert other_seed != first


def test_mismatched_lengths_and_unknown_metric_are_errors():
    with pytest.raises(ValueError, match="pair up"):
        load_metric("rougeL").score(["a"], [])
    with pytest.raises(ValueError, match="unknown metric 'bleu5'"):
        load_metric("bleu5")


def test_missing_extra_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "sacrebleu.metrics.bleu", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "lvlmbench.judging.metrics.text", raising=False)
    with pytest.raises(MetricUnavailable, match=r"pip install 'lvlmbench\[metrics\]'"):
        load_metric("bleu4")
    ok, missing = available_metrics(["bleu4", "length", "random"])
    assert "bleu4" in missing and "length" in ok and "random" in ok


def _wordnet_or_skip():
    pytest.importorskip("nltk")
    from lvlmbench.judging.metrics._wordnet import wordnet_dir

    if not (wordnet_dir() / "data.noun").is_file() and not os.environ.get("CI"):
        pytest.skip("WordNet is not installed: apt-get install wordnet-base")


def test_meteor_works_offline_with_debian_wordnet():
    _wordnet_or_skip()
    same = _score("meteor", "a red dog runs in the park", "a red dog runs in the park")
    synonym = _score("meteor", "a red hound runs", "a red dog runs")
    unrelated = _score("meteor", "blue triangles float", "a red dog runs")
    assert same > 0.99
    # "hound" matches "dog" only through WordNet synonyms: a real WordNet was read.
    assert synonym > _score("meteor", "a red cat runs", "a red dog runs")
    assert unrelated == 0.0 and not math.isnan(synonym)


def test_meteor_without_wordnet_says_how_to_install(tmp_path, monkeypatch):
    pytest.importorskip("nltk")
    from lvlmbench.judging.metrics._wordnet import load_wordnet

    load_wordnet.cache_clear()
    monkeypatch.setenv("LVLMBENCH_WORDNET", str(tmp_path))
    try:
        with pytest.raises(MetricUnavailable, match="apt-get install wordnet"):
            load_metric("meteor")
    finally:
        load_wordnet.cache_clear()
