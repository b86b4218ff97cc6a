"""baseline/pixels: answers follow what is really in the image, not the text."""

from __future__ import annotations

from typing import Any

import pytest

from lvlmbench.baselines.pixels import Look, choose_option, judge_statement
from lvlmbench.choice import ParsedChoice, render_choice_prompt
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.scenes import render_png, validate_scene
from lvlmbench.types import BenchmarkItem, ImagePart, Message


def _png(objects: list[dict[str, Any]], lighting: str = "day") -> bytes:
    program = validate_scene(
        {
            "background": {"kind": "plain", "color": "white"},
            "lighting": {"kind": lighting},
            "objects": objects,
        }
    )
    return render_png(program, 256, 256)


def _obj(category: str, color: str, x: float, y: float, size: float = 0.18) -> dict[str, Any]:
    return {"category": category, "color": color, "position": {"x": x, "y": y}, "size": size}


SCENE = _png(
    [
        _obj("circle", "red", 0.2, 0.3),
        _obj("circle", "red", 0.2, 0.75),
        _obj("circle", "red", 0.5, 0.5),
        _obj("square", "blue", 0.82, 0.5),
    ]
)


def test_look_sees_colours_blobs_and_directions() -> None:
    look = Look.of(SCENE)
    assert look.present("red") and look.present("blue")
    assert not look.present("green") and not look.present("yellow")
    assert len(look.blobs("red")) == 3
    assert len(look.blobs("blue")) == 1
    assert "white" in look.background


def test_night_is_told_from_day() -> None:
    objects = [_obj("circle", "red", 0.5, 0.5)]
    assert Look.of(_png(objects, "night")).time_of_day() == "night"
    assert Look.of(_png(objects, "day")).time_of_day() == "day"


@pytest.mark.parametrize(
    ("question", "options", "expected"),
    [
        ("Which colour appears in the picture?", ["green", "yellow", "blue", "pink"], "C"),
        ("How many red circles are there?", ["1", "2", "3", "4"], "C"),
        (
            "Where is the blue square compared with the red circle?",
            ["to the left of it", "above it", "below it", "to the right of it"],
            "D",
        ),
    ],
)
def test_options_supported_by_the_pixels_win(
    question: str, options: list[str], expected: str
) -> None:
    parsed = ParsedChoice(question, dict(zip("ABCD", options, strict=True)), "mc")
    # The fallback (what the prior would say) is always a wrong letter here.
    wrong = next(letter for letter in "ABCD" if letter != expected)
    assert choose_option(parsed, Look.of(SCENE), wrong) == expected


def test_statements_about_missing_colours_are_false() -> None:
    look = Look.of(SCENE)
    assert judge_statement("There is a blue square in the picture.", look)
    assert not judge_statement("There is a green square in the picture.", look)


async def test_the_baseline_answers_from_the_image_and_falls_back_without_one(
    tmp_path: Any,
) -> None:
    item = BenchmarkItem(
        id="i1",
        benchmark="b",
        kind="mc",
        question="Which colour appears in the picture?",
        options={"A": "green", "B": "yellow", "C": "blue", "D": "pink"},
        answer="C",
    )
    client = ModelClient(load_chat_model("baseline/pixels"), None)
    prompt = render_choice_prompt(item)
    seen = await client.generate([Message.user(ImagePart.from_bytes(SCENE), prompt)])
    assert seen.ok and seen.text == "Answer: C"
    blind = await client.generate([Message.user(prompt)])
    prior = await ModelClient(load_chat_model("baseline/prior"), None).generate(
        [Message.user(prompt)]
    )
    assert blind.text == prior.text


async def test_an_unreadable_image_is_a_failed_call_not_a_guess() -> None:
    client = ModelClient(load_chat_model("baseline/pixels"), None)
    item = BenchmarkItem(
        id="i2", benchmark="b", kind="tf", question="There is a red ball.", answer="true"
    )
    output = await client.generate(
        [Message.user(ImagePart.from_bytes(b"not an image"), render_choice_prompt(item))]
    )
    assert not output.ok and "cannot read the image" in (output.reason or "")


async def test_true_false_items_are_answered_from_the_image() -> None:
    client = ModelClient(load_chat_model("baseline/pixels"), None)
    replies = []
    for statement in ("There is a blue square.", "There is a green square."):
        item = BenchmarkItem(id="t", benchmark="b", kind="tf", question=statement, answer="true")
        output = await client.generate(
            [Message.user(ImagePart.from_bytes(SCENE), render_choice_prompt(item))]
        )
        assert output.ok, output.reason
        replies.append(output.text)
    assert replies == ["true", "false"]


def test_blobs_are_the_four_connected_components_in_reading_order() -> None:
    """_components against networkx's components of the 4-neighbour grid graph: same blobs,
    same sizes and centres, listed by each blob's first cell in reading order."""
    import networkx as nx
    import numpy as np

    from lvlmbench.baselines.pixels import _MIN_BLOB, _components

    mask = np.random.default_rng(7).random((40, 30)) < 0.45
    mask[0, :8] = True  # a blob along the top edge
    mask[1, :8] = False
    graph = nx.grid_2d_graph(*mask.shape)
    graph.remove_nodes_from([tuple(cell) for cell in np.argwhere(~mask).tolist()])
    blobs = [sorted(c) for c in nx.connected_components(graph) if len(c) >= _MIN_BLOB]
    blobs.sort(key=lambda cells: cells[0])
    expected = [
        (len(c), sum(r for r, _ in c) / len(c), sum(k for _, k in c) / len(c)) for c in blobs
    ]
    found = _components(mask)
    assert len(found) >= 5
    assert found == expected  # integer sums over the same cells: the same floats


def test_a_picture_asked_about_again_is_looked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An experiment asks about every picture again (one re-keyed copy per target): the worker
    keeps each picture's look, so the scene is decoded once, and the answers are the same."""
    from lvlmbench.baselines import pixels

    looked: list[bytes] = []
    original = pixels.Look.of

    def counting(png: bytes) -> pixels.Look:
        looked.append(png)
        return original(png)

    monkeypatch.setattr(pixels.Look, "of", staticmethod(counting))
    monkeypatch.setattr(pixels, "_looks", pixels.Recent(1024))
    options = {"A": "1", "B": "2", "C": "3", "D": "4"}
    parsed = ParsedChoice("How many red circles are there?", options, "mc")
    first = pixels.answer_from_pixels(parsed, SCENE, "A")
    again = pixels.answer_from_pixels(parsed, SCENE, "A")
    assert first == again and looked == [SCENE]
    other = _png([], "night")
    pixels.answer_from_pixels(parsed, other, "A")
    assert looked == [SCENE, other]
