"""Scene mode: a model examiner's answer key is recomputed from the facts of the program that
was rendered, through the question's structured form, for every kind of form the writer may
use; a mismatch is asked again with the reason, and a unit whose key stays wrong is dropped."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import COLOURS, Call, ScriptedExaminer, description_colours

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.stages import KEY_REASKS
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.scenes import SceneProgram
from lvlmbench.scenes.facts import compute_facts
from lvlmbench.scenes.forms import QuestionForm
from lvlmbench.scenes.keycheck import check_key
from lvlmbench.store import Store, iter_artifacts, iter_items

PROGRAM = {
    "background": {"kind": "plain", "color": "white"},
    "objects": [
        {"category": "ball", "color": "red", "position": {"x": 0.2, "y": 0.5}, "size": 0.12},
        {"category": "ball", "color": "blue", "position": {"x": 0.5, "y": 0.5}, "size": 0.12},
        {"category": "cup", "color": "green", "position": {"x": 0.8, "y": 0.5}, "size": 0.12},
        {"category": "square", "color": "blue", "position": {"x": 0.5, "y": 0.22}, "size": 0.1},
        {"category": "square", "color": "blue", "position": {"x": 0.5, "y": 0.78}, "size": 0.1},
        {
            "category": "sign",
            "color": "yellow",
            "position": {"x": 0.18, "y": 0.2},
            "size": 0.3,
            "text": "STOP",
        },
        {"category": "star", "color": "pink", "position": {"x": 0.85, "y": 0.85}, "size": 0.05},
    ],
}
"""Left to right along the middle: a red ball, a blue ball, a green cup; a blue square above
and one below the blue ball; a large yellow STOP sign top left (clearly the largest object, and
diagonal to the balls: no clear direction); a tiny pink star bottom right (the smallest). Clear
daylight."""
FACTS = compute_facts(SceneProgram.model_validate(PROGRAM))

BLUE_BALL = {"category": "ball", "color": "blue"}
RED_BALL = {"category": "ball", "color": "red"}
CUP = {"category": "cup", "color": "green"}
SQUARES = {"category": "square"}

# (question, kind, right key, a wrong key, distractors (mc), form) for every kind of form.
CASES: list[tuple[str, str, str, str, list[str], dict[str, Any]]] = [
    (
        "How many squares are there?",
        "mc",
        "2",
        "3",
        ["1", "4"],
        {"kind": "count", "subject": SQUARES},
    ),
    (
        "What is the color of the cup?",
        "mc",
        "green",
        "blue",
        ["red", "purple"],
        {"kind": "color", "subject": {"category": "cup"}},
    ),
    (
        "Where in the picture is the star?",
        "mc",
        "bottom right",
        "top left",
        ["top right", "bottom left"],
        {"kind": "position", "subject": {"category": "star"}},
    ),
    (
        "What does the sign say?",
        "mc",
        "STOP",
        "EXIT",
        ["SLOW", "OPEN"],
        {"kind": "text", "subject": {"category": "sign"}},
    ),
    (
        "Where is the green cup compared with the blue ball?",
        "mc",
        "to the right of it",
        "to the left of it",
        ["above it", "below it"],
        {"kind": "relation", "subject": CUP, "object": BLUE_BALL},
    ),
    (
        "Which object is green?",
        "mc",
        "the cup",
        "the star",
        ["the sign", "the red ball"],
        {"kind": "which_color", "color": "green"},
    ),
    (
        "Which object is left of the blue ball?",
        "mc",
        "the red ball",
        "the green cup",
        ["the blue square", "the purple car"],
        {"kind": "which_relation", "relation": "left of", "object": BLUE_BALL},
    ),
    (
        "Which of these can be seen in the picture?",
        "mc",
        "a cup",
        "a car",
        ["a tree", "a lamp"],
        {"kind": "which_present"},
    ),
    (
        "Which object is the largest?",
        "mc",
        "the sign",
        "the star",
        ["the green cup", "the red ball"],
        {"kind": "largest"},
    ),
    (
        "Which object is the smallest?",
        "mc",
        "the star",
        "the sign",
        ["the green cup", "the red ball"],
        {"kind": "smallest"},
    ),
    (
        "What is the weather like in this picture?",
        "mc",
        "clear",
        "rainy",
        ["snowy", "foggy"],
        {"kind": "scene", "attribute": "weather"},
    ),
    (
        "The green cup is to the right of the red ball.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "relation", "subject": CUP, "relation": "right of", "object": RED_BALL},
    ),
    (
        "The cup is green.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "color", "subject": {"category": "cup"}, "claim": "green"},
    ),
    (
        "There are three squares in the picture.",
        "tf",
        "false",
        "true",
        [],
        {"kind": "count", "subject": SQUARES, "claim": "3"},
    ),
    (
        "There is no yellow star in the picture.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "presence", "subject": {"category": "star", "color": "yellow"}, "negated": True},
    ),
    (
        "There are more squares than cups.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "more", "subject": SQUARES, "object": {"category": "cup"}},
    ),
    (
        "The pink star is the smallest object.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "smallest", "claim": "the pink star"},
    ),
    (
        "It is night-time in this picture.",
        "tf",
        "false",
        "true",
        [],
        {"kind": "scene", "attribute": "time_of_day", "claim": "night-time"},
    ),
    (
        "The sign in the top left says STOP.",
        "tf",
        "true",
        "false",
        [],
        {"kind": "text", "subject": {"category": "sign"}, "claim": "STOP"},
    ),
]


def _check(question: str, kind: str, key: str, distractors: list[str], form: dict[str, Any]):
    return check_key(FACTS, question, kind, key, distractors, QuestionForm.model_validate(form))


def test_every_kind_of_form_the_writer_uses_is_covered() -> None:
    kinds = {form["kind"] for *_, form in CASES}
    assert kinds == set(QuestionForm.model_fields["kind"].annotation.__args__)  # type: ignore[union-attr]


@pytest.mark.parametrize(("question", "kind", "right", "wrong", "distractors", "form"), CASES)
def test_a_right_key_is_verified(
    question: str, kind: str, right: str, wrong: str, distractors: list[str], form: dict[str, Any]
) -> None:
    others = [wrong, *distractors] if kind == "mc" else []
    found = _check(question, kind, right, others, form)
    assert found.verdict == "verified", found.reason


@pytest.mark.parametrize(("question", "kind", "right", "wrong", "distractors", "form"), CASES)
def test_a_planted_wrong_key_is_caught(
    question: str, kind: str, right: str, wrong: str, distractors: list[str], form: dict[str, Any]
) -> None:
    """The wrong key swapped in for the right one (which becomes a distractor): a mismatch."""
    others = [right, *distractors] if kind == "mc" else []
    found = _check(question, kind, wrong, others, form)
    assert found.verdict == "mismatch", found.reason


def test_the_issues_three_questions_come_back_as_mismatches_with_reasons() -> None:
    # Pattern matching called all three "not checkable" and kept them.
    colour = _check(*CASES[1][:2], "blue", ["green", "red", "purple"], CASES[1][5])
    assert colour.reason == "key says 'blue', the program has green"
    left = _check(*CASES[6][:2], "the green cup", ["the red ball", *CASES[6][4]], CASES[6][5])
    assert left.verdict == "mismatch" and "the red ball" in left.reason
    statement = _check(CASES[11][0], "tf", "false", [], CASES[11][5])
    assert statement.reason.startswith("key says false, the program makes it true")


@pytest.mark.parametrize(
    ("question", "kind", "correct", "distractors", "form", "reason"),
    [
        # Another right answer among the distractors ("3" and "three" alike).
        ("How many squares?", "mc", "2", ["two", "1", "3"], CASES[0][5], "also right"),
        # An object the program has twice: the question picks neither.
        (
            "What colour is the square?",
            "mc",
            "blue",
            ["red", "green", "pink"],
            {"kind": "color", "subject": SQUARES},
            "the program has 2 objects that are the square",
        ),
        # The sign is diagonal to the blue ball: neither clearly left of it nor not.
        (
            "Which object is left of the blue ball?",
            "mc",
            "the red ball",
            ["the sign", "the green cup", "the pink star"],
            CASES[6][5],
            "does not settle whether 'the sign' is wrong",
        ),
        # The form says one thing, the question another.
        (
            "The green cup is to the right of the red ball.",
            "tf",
            "true",
            [],
            {**CASES[11][5], "relation": "left of"},
            "is not one value the statement states",
        ),
        ("How many stars are there?", "mc", "1", ["2", "3", "4"], CASES[0][5], "does not name"),
        # An option that is no answer of the form's kind.
        ("How many squares are there?", "mc", "a few", ["1", "3", "4"], CASES[0][5], "no single"),
    ],
)
def test_questions_the_program_does_not_settle_are_mismatches(
    question: str,
    kind: str,
    correct: str,
    distractors: list[str],
    form: dict[str, Any],
    reason: str,
) -> None:
    found = _check(question, kind, correct, distractors, form)
    assert found.verdict == "mismatch" and reason in found.reason, found.reason


def test_without_a_form_the_key_is_not_checkable() -> None:
    found = check_key(FACTS, "Is this a nice picture?", "tf", "true", [], None)
    assert found.verdict == "not checkable"


def test_a_form_that_does_not_fit_its_question_is_refused() -> None:
    with pytest.raises(ValueError, match="needs subject"):
        QuestionForm.model_validate({"kind": "count"})
    presence = QuestionForm.model_validate({"kind": "presence", "subject": SQUARES})
    assert presence.problem("mc") is not None and presence.problem("tf") is None
    claimless = QuestionForm.model_validate({"kind": "color", "subject": SQUARES})
    assert "claim" in (claimless.problem("tf") or "")


# -- the pipeline: re-ask on a mismatch, drop when it stays wrong ---------------------------------

REASK = "contradicts your answer key"


def _wrong_key(call: Call) -> str | None:
    """The question writer keys the circle with the square's colour (a wrong key)."""
    circle, square = description_colours(call.description)
    form = {"kind": "color", "subject": {"category": "circle"}}
    if call.kind == "mc":
        wrong = [c for c in COLOURS if c not in (circle, square)][:2]
        reply = {"question": "What colour is the circle?", "kind": "mc", "correct": square}
        return json.dumps({**reply, "distractors": [circle, *wrong], "form": form})
    truth = re.search(r"must be \*\*(true|false)\*\*", call.prompt)
    claim = square if truth and truth.group(1) == "true" else circle
    form["claim"] = claim
    reply = {"question": f"The circle is {claim}.", "kind": "tf", "form": form}
    return json.dumps({**reply, "correct": truth.group(1) if truth else "true"})


def _wrong_until_told(call: Call) -> str | None:
    """Wrong at first; right once the re-ask says what the program has."""
    return None if any(REASK in m.text() for m in call.messages) else _wrong_key(call)


SETTINGS = GenerateSettings(
    capability="colour naming",
    n=1,
    m=1,
    per_aspect=2,
    levels=("easy",),
    max_attempts=2,
    k_checks=2,
    tf_share=0.5,
)


async def _run(store: Store, examiner: ScriptedExaminer) -> dict[str, Any]:
    backend = ModelBackend(ModelClient(examiner, store), mode="scene", k_checks=2)
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return (await generate_benchmark(store, SETTINGS, backend, images)).as_json()
    finally:
        await images.aclose()


async def test_a_wrong_key_is_asked_again_with_the_reason_not_redrawn(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        examiner = ScriptedExaminer(overrides={"mc": _wrong_until_told, "tf": _wrong_until_told})
        report = await _run(store, examiner)
        check, keys = report["self_check"], report["key_check"]
        # One render per unit: the image passed; only the question was written again.
        assert (check["units"], check["accepted"], check["renders"]) == (2, 2, 2)
        assert check["rejected_renders"] == 0
        assert keys == {
            "questions": 2,
            "verified": 2,
            "mismatched": 0,
            "not_checkable": 0,
            "reasks": 2,
            "fixed_by_reask": 2,
            "units_dropped": 0,
        }
        reasks = [c for c in examiner.calls if REASK in c[-1].text()]
        assert len(reasks) == 2
        for call in reasks:  # the reason goes back with the examiner's own wrong reply
            assert "key says" in call[-1].text() and call[-2].role == "assistant"
        for item in iter_items(store, SETTINGS.benchmark):
            key = item.meta["key_check"]
            assert key["verdict"] == "verified" and key["reasks"] == 1
            assert key["mismatches"][0].startswith("key says")
            # What the verdict rests on is stored with the item: the program and the form.
            assert item.meta["scene_program"]["objects"][0]["category"] == "circle"
            assert item.meta["question_form"]["subject"] == {"category": "circle"}
            circle, square = description_colours(item.caption or "")
            if item.kind == "mc":
                assert item.options[item.answer or ""] == circle
            else:
                claim = circle if item.answer == "true" else square
                assert item.question == f"The circle is {claim}."
    finally:
        store.close()


async def test_a_key_still_wrong_after_the_reasks_drops_the_unit(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        examiner = ScriptedExaminer(overrides={"mc": _wrong_key, "tf": _wrong_key})
        report = await _run(store, examiner)
        check, keys = report["self_check"], report["key_check"]
        # Dropped after the re-asks, not re-rendered: and not counted as a rejected render.
        assert (check["units"], check["accepted"], check["dropped"]) == (2, 0, 2)
        assert check["renders"] == 2 and check["rejected_renders"] == 0
        assert keys["mismatched"] == keys["units_dropped"] == 2
        assert keys["reasks"] == 2 * KEY_REASKS and keys["verified"] == 0
        for unit in iter_artifacts(store, SETTINGS.benchmark, "units"):
            (step,) = unit["history"]
            assert step["decision"] == "key mismatch" and step["key_check"] == "mismatch"
            assert step["score"] == 1.0 and step["key_reasks"] == KEY_REASKS
            assert step["reason"].startswith("key mismatch: key says ")
        assert list(iter_items(store, SETTINGS.benchmark)) == []
        # Per unit: the description, the scene program, the checks and their answers, then the
        # question and its re-asks; no second scene program, no second image check.
        assert examiner.kinds.count("scene") == 2
        assert examiner.kinds.count("mc") + examiner.kinds.count("tf") == 2 * (1 + KEY_REASKS)
    finally:
        store.close()


async def test_a_reask_without_a_usable_question_drops_the_unit_with_its_mismatch(
    tmp_path: Path,
) -> None:
    def broken_when_told(call: Call) -> str | None:
        told = any(REASK in m.text() for m in call.messages)
        return "I cannot do that." if told else _wrong_key(call)

    store = Store.open(str(tmp_path / "s.db"))
    try:
        examiner = ScriptedExaminer(overrides={"mc": broken_when_told, "tf": broken_when_told})
        report = await _run(store, examiner)
        assert report["key_check"]["units_dropped"] == report["key_check"]["mismatched"] == 2
        for unit in iter_artifacts(store, SETTINGS.benchmark, "units"):
            (step,) = unit["history"]
            assert step["decision"] == "key mismatch" and step["key_reasks"] == 1
            assert (
                "key says" in step["reason"]
                and "asked again: question unparseable" in (step["reason"])
            )
    finally:
        store.close()


async def test_right_keys_are_verified_and_say_so(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        report = await _run(store, ScriptedExaminer())
        assert report["self_check"]["accepted"] == 2
        assert report["key_check"]["verified"] == 2 and report["key_check"]["reasks"] == 0
        items = list(iter_items(store, SETTINGS.benchmark))
        assert len(items) == 2
        for item in items:
            assert item.meta["key_check"]["verdict"] == "verified"
            assert "recomputed from the program" in item.meta["key_check"]["reason"]
    finally:
        store.close()
