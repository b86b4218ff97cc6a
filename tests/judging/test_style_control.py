"""Joining matches to answer texts for style control: missing texts are counted, never
guessed; too little data gives a note, not an error."""

from __future__ import annotations

import json

from lvlmbench.judging.style_control import style_control

TEXTS = {
    "i1": {"a": "short", "b": "a much longer answer with **bold** text", "c": "- one\n- two"},
    "i2": {"a": "# Head\nwords here", "b": "tiny"},
    "i3": {"a": "alone"},
}


def test_matches_without_both_texts_are_left_out_and_counted() -> None:
    matches = [
        ("i1", "a", "b", 0.0),
        ("i1", "a", "c", 1.0),
        ("i1", "b", "c", 0.5),
        ("i2", "a", "b", 1.0),
        ("i2", "a", "c", 1.0),  # c has no answer on i2
        ("i3", "a", "b", 0.0),  # b has no answer on i3
        ("i9", "a", "b", 1.0),  # an item with no texts at all
    ]
    result = style_control(matches, TEXTS, rounds=20)
    assert (result.matches_used, result.matches_without_text) == (4, 3)
    assert result.ratings is not None and set(result.ratings.ratings) == {"a", "b", "c"}
    data = result.as_dict()
    json.dumps(data, allow_nan=False)  # plain JSON, no NaN
    assert data["matches_used"] == 4 and data["matches_without_text"] == 3
    assert set(data["ratings"]) == {"a", "b", "c"}


def test_sparse_data_falls_back_to_the_regularised_fit_with_a_note() -> None:
    # a never loses: no finite unpenalised optimum, as for the raw Bradley-Terry
    result = style_control([("i1", "a", "b", 1.0), ("i2", "a", "b", 1.0)], TEXTS, rounds=10)
    assert result.ratings is not None
    assert result.note is not None and "l2=1.0" in result.note
    assert result.ratings.ratings["a"] > result.ratings.ratings["b"]


def test_no_match_with_texts_gives_a_note() -> None:
    result = style_control([("i3", "a", "b", 1.0)], TEXTS, rounds=10)
    assert result.ratings is None and result.matches_without_text == 1
    assert result.note == "no match has both answers' texts"
    assert result.as_dict()["ratings"] is None
