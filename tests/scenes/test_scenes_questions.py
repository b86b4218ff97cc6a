"""Question model: options for any placement of the key; cross-process reproducibility."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from lvlmbench.scenes import ProceduralExaminer, Question
from lvlmbench.scenes.questions import count_options, mc, tf


def _question() -> Question:
    return Question(
        text="What colour is the car?",
        kind="mc",
        correct="red",
        distractors=["blue", "green", "yellow"],
    )


def test_arrange_puts_the_key_where_asked() -> None:
    q = _question()
    for letter in "ABCD":
        options, key = q.arrange(letter)
        assert key == letter and options[letter] == "red"
        assert set(options) == set("ABCD") and sorted(options.values()) == sorted(
            ["red", "blue", "green", "yellow"]
        )
    options, key = q.permute([2, 0, 3, 1])
    assert options == {"A": "green", "B": "red", "C": "yellow", "D": "blue"} and key == "B"
    with pytest.raises(ValueError, match="not a permutation"):
        q.permute([0, 0, 1, 2])
    assert q.prompt().splitlines()[1] == "A. red"


def test_malformed_questions_are_rejected() -> None:
    with pytest.raises(ValidationError, match="distinct"):
        Question(text="?", kind="mc", correct="red", distractors=["red", "blue", "green"])
    with pytest.raises(ValidationError, match="three distractors"):
        Question(text="?", kind="mc", correct="red", distractors=["blue"])
    with pytest.raises(ValidationError, match=r"answers .true. or .false."):
        Question(text="?", kind="tf", correct="yes", distractors=["no"])


def test_true_false_has_no_letters() -> None:
    q = tf("The car is red.", False)
    assert q.text == "True or false: The car is red." and q.correct == "false"
    assert q.arrange("D") == ({}, "false") and q.permute([0]) == ({}, "false")
    assert q.prompt().endswith("Answer true or false.")


def test_builders() -> None:
    import random

    rng = random.Random(0)
    q = mc("Which?", "a", ["b", "a", "c"], rng, fallback=["d", "e"])
    assert q is not None and q.correct == "a" and set(q.distractors) <= {"b", "c", "d", "e"}
    assert q.distractors[:2] in (["b", "c"], ["c", "b"])  # plausible distractors come first
    assert mc("Which?", "a", ["b"], rng) is None
    for n in range(0, 12):
        wrong = count_options(n, rng)
        assert len(set(wrong)) == 3 and str(n) not in wrong and all(int(w) >= 0 for w in wrong)


_SCRIPT = """
import hashlib
from lvlmbench.scenes import ProceduralExaminer
ex = ProceduralExaminer()
h = hashlib.sha256()
for fine in ("front of a stack", "nearest object"):
    general = "depth and occlusion" if fine.startswith("front") else "distance and containment"
    s = ex.sample("spatial understanding", general, fine, "hard", 9)
    h.update(s.model_dump_json().encode() + s.png())
print(h.hexdigest())
"""


def test_same_bytes_in_another_process() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True
    ).stdout.strip()
    here = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "7"},
        check=True,
    ).stdout.strip()
    assert out == here and len(out) == 64
    assert (
        ProceduralExaminer()
        .sample("spatial understanding", "depth and occlusion", "front of a stack", "hard", 9)
        .png()
    )
