"""Scene mode: a model examiner's answer key is recomputed from the facts of the program that
was rendered; a mismatch is rejected (and redrawn) like a failed self-check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import COLOURS, Call, ScriptedExaminer, description_colours

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.scenes import SceneProgram
from lvlmbench.scenes.facts import compute_facts
from lvlmbench.scenes.keycheck import check_key
from lvlmbench.store import Store, iter_artifacts, iter_items

PROGRAM = {
    "background": {"kind": "plain", "color": "white"},
    "objects": [
        {"category": "circle", "color": "red", "position": {"x": 0.2, "y": 0.5}, "size": 0.15},
        {"category": "square", "color": "blue", "position": {"x": 0.5, "y": 0.5}, "size": 0.15},
        {"category": "square", "color": "blue", "position": {"x": 0.8, "y": 0.5}, "size": 0.15},
        {"category": "square", "color": "green", "position": {"x": 0.5, "y": 0.2}, "size": 0.1},
    ],
}
FACTS = compute_facts(SceneProgram.model_validate(PROGRAM))


@pytest.mark.parametrize(
    ("question", "kind", "correct", "distractors", "verdict"),
    [
        # a red circle, two blue squares and a green square
        ("How many squares are there?", "mc", "3", ["1", "2", "4"], "verified"),
        ("How many squares are there?", "mc", "three", ["one", "two", "four"], "verified"),
        ("How many squares are there?", "mc", "2", ["1", "3", "4"], "mismatch"),
        ("How many blue squares are in the picture?", "mc", "2", ["1", "3", "0"], "verified"),
        ("How many blue squares are in the picture?", "mc", "3", ["1", "2", "0"], "mismatch"),
        ("How many triangles are there?", "mc", "0", ["1", "2", "3"], "verified"),
        ("What colour is the circle?", "mc", "red", ["blue", "green", "pink"], "verified"),
        ("What color is the circle?", "mc", "blue", ["red", "green", "pink"], "mismatch"),
        ("What colour are the squares?", "mc", "blue", ["red", "green", "pink"], "not checkable"),
        ("The circle is red.", "tf", "true", [], "verified"),
        ("The circle is red.", "tf", "false", [], "mismatch"),
        ("The circle is blue.", "tf", "false", [], "verified"),
        ("There are 3 squares.", "tf", "true", [], "verified"),
        ("There is a green square.", "tf", "true", [], "verified"),
        ("There are two green squares.", "tf", "true", [], "mismatch"),
        ("Which shape is furthest to the left?", "mc", "circle", ["square"], "not checkable"),
        ("The scene feels calm.", "tf", "true", [], "not checkable"),
    ],
)
def test_keys_recomputed_from_the_program(
    question: str, kind: str, correct: str, distractors: list[str], verdict: str
) -> None:
    assert check_key(FACTS, question, kind, correct, distractors).verdict == verdict


def test_a_distractor_that_is_also_right_is_a_mismatch() -> None:
    found = check_key(FACTS, "How many squares?", "mc", "3", ["three", "1", "2"])
    assert found.verdict == "mismatch" and "distractor" in found.reason


def _wrong_key(call: Call) -> str | None:
    """The question writer keys the circle with the square's colour (a wrong key)."""
    circle, square = description_colours(call.description)
    if call.kind == "mc":
        wrong = [c for c in COLOURS if c not in (circle, square)][:2]
        reply = {"question": "What colour is the circle?", "kind": "mc", "correct": square}
        return json.dumps({**reply, "distractors": [circle, *wrong]})
    return json.dumps({"question": f"The circle is {square}.", "kind": "tf", "correct": "true"})


SETTINGS = GenerateSettings(
    capability="colour naming", n=1, m=1, per_aspect=2, levels=("easy",), max_attempts=2, k_checks=2
)


async def _run(store: Store, examiner: ScriptedExaminer) -> dict[str, Any]:
    backend = ModelBackend(ModelClient(examiner, store), mode="scene", k_checks=2)
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return await generate_benchmark(store, SETTINGS, backend, images)
    finally:
        await images.aclose()


async def test_wrong_keys_are_rejected_like_failed_self_checks(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        examiner = ScriptedExaminer(overrides={"mc": _wrong_key, "tf": _wrong_key})
        report = await _run(store, examiner)
        check = report["self_check"]
        # Every render passed the image self-check, then failed the key check: rejected,
        # redrawn once (max_attempts 2), and dropped.
        assert (check["units"], check["accepted"], check["dropped"]) == (2, 0, 2)
        assert check["rejected_renders"] == check["renders"] == 4
        units = list(iter_artifacts(store, SETTINGS.benchmark, "units"))
        for unit in units:
            assert [h["decision"] for h in unit["history"]] == ["reject", "reject"]
            for step in unit["history"]:
                assert step["key_check"] == "mismatch" and step["score"] == 1.0
                assert step["reason"].startswith("key mismatch: key says ")
        assert list(iter_items(store, SETTINGS.benchmark)) == []
    finally:
        store.close()


async def test_right_keys_are_verified_and_say_so(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        report = await _run(store, ScriptedExaminer())
        assert report["self_check"]["accepted"] == 2
        items = list(iter_items(store, SETTINGS.benchmark))
        assert len(items) == 2
        for item in items:
            assert item.meta["key_check"]["verdict"] == "verified"
            assert "recomputed from the program" in item.meta["key_check"]["reason"]
    finally:
        store.close()
