"""The model examiner (ModelBackend) through the whole pipeline, in scene mode, with scripted
replies: valid programs are drawn exactly and questioned; invalid JSON, duplicate aspects and
unrenderable scene programs are caught, recorded in the artifacts and the report, and the
benchmark still gets built from what remains. The single stages are tested on their own in
test_stages_*.py."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import (
    Call,
    Override,
    ScriptedExaminer,
    description_colours,
    description_tag,
    scene_program,
)

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.stages import stable_seed
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ErrorKind, ModelClient, ProviderError, RunAborted
from lvlmbench.scenes import SceneProgram, render_png, validate_scene
from lvlmbench.store import Store, get_artifact, iter_artifacts, iter_items
from lvlmbench.types import BenchmarkItem, GenerationConfig, Message

SETTINGS = GenerateSettings(
    capability="spatial understanding",
    name="llm-e2e",
    n=1,
    m=2,
    per_aspect=2,
    levels=("easy", "hard"),
    k_checks=2,
    tf_share=0.5,
    seed=4,
)
UNITS = 1 * 2 * 2 * 2
ASPECTS = ("Left and right", "Above and below")


@dataclass
class Run:
    store: Store
    model: ScriptedExaminer
    report: dict[str, Any]
    items: list[BenchmarkItem]
    units: dict[str, dict[str, Any]]


_open: list[Store] = []


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    while _open:
        _open.pop().close()


def _run(tmp_path: Path, overrides: dict[str, Override] | None = None, **changes: Any) -> Run:
    """Generate SETTINGS (with ``changes``) in a new store with a scripted examiner."""
    settings = replace(SETTINGS, **changes)
    store = Store.open(str(tmp_path / "llm.db"))
    _open.append(store)
    model = ScriptedExaminer(overrides=overrides or {})
    backend = ModelBackend(ModelClient(model, store), mode="scene", k_checks=settings.k_checks)
    images = ImageClient(load_image_model("procedural"), store)

    async def go() -> dict[str, Any]:
        try:
            return (await generate_benchmark(store, settings, backend, images)).as_json()
        finally:
            await images.aclose()

    report = asyncio.run(go())
    units = {u["meta"]["unit"]: u for u in iter_artifacts(store, settings.benchmark, "units")}
    return Run(store, model, report, list(iter_items(store, settings.benchmark)), units)


def _digest(program: dict[str, Any]) -> str:
    return hashlib.sha256(render_png(validate_scene(program), 512, 512)).hexdigest()


def _tag(description: str) -> str:
    return description.rsplit("(scene ", 1)[1].rstrip(").")


def _prompt(messages: list[Message]) -> str:
    """A call's first user message: the stage prompt (re-asks follow it)."""
    return next(m for m in messages if m.role == "user").text()


def _by_tag(run: Run, tag: str) -> dict[str, Any]:
    """The unit whose description carries ``tag`` (dropped units keep its topic in meta)."""
    (found,) = [
        u for u in run.units.values() if u["meta"]["description_meta"].get("topic") == f"t{tag}"
    ]
    return found


def test_scene_mode_draws_the_examiners_program_and_asks_its_question(tmp_path: Path) -> None:
    run = _run(tmp_path)
    report, items = run.report, run.items
    assert report["examiner"] == "fake/scripted (scene mode) + procedural"
    plan = report["plan"]
    assert [a["fine"] for a in plan["aspects"]] == list(ASPECTS) and plan["problems"] == []
    assert plan["aspects"][0]["guideline"] == "Make the left and right plain to see in every image."
    assert report["self_check"]["accepted"] == UNITS == len(items)
    assert report["self_check"]["rejected_renders"] == 0

    kinds = Counter(i.kind for i in items)
    assert kinds["mc"] > 0 and kinds["tf"] > 0  # tf_share 0.5 over 8 units
    for item in items:
        circle, square = description_colours(item.caption or "")
        # The image is the examiner's scene program, drawn exactly, and stored with the item.
        assert item.images == [_digest(scene_program(item.caption or ""))]
        program = SceneProgram.model_validate(scene_program(item.caption or ""))
        assert item.meta["scene_program"] == program.model_dump(mode="json")
        assert item.meta["key_check"]["verdict"] == "verified"
        if item.kind == "mc":
            assert item.question == "What colour is the circle?"
            assert item.options[item.answer or ""] == circle
            assert sorted(item.options) == ["A", "B", "C", "D"]
        else:  # a statement with the truth value the key plan assigned it
            claim = circle if item.answer == "true" else square
            assert item.question == f"The circle is {claim}."
        meta = item.meta
        assert meta["check_method"] == "examiner VQA" and meta["alignment"] == 1.0
        assert meta["topic"] == f"t{_tag(item.caption or '')}" and len(meta["keywords"]) == 3
        assert meta["fine_aspect"] in ASPECTS and meta["general_aspect"] == "Relative position"
    letters = Counter(i.answer for i in items if i.kind == "mc")
    assert max(letters.values()) - min(letters.get(x, 0) for x in "ABCD") <= 1

    # The scene call carries the SceneProgram schema; the check answers see the image only;
    # the question writer sees the description and the errors, never the image.
    schema = json.dumps(SceneProgram.model_json_schema(), separators=(",", ":"))
    for call in run.model.calls:
        text = "\n".join(m.text() for m in call)
        if "into a scene program" in text:
            assert schema in text
        elif "answer the question about it" in text:
            assert [m.role for m in call] == ["user"]
            images = call[0].images()
            assert len(images) == 1
            assert hashlib.sha256(images[0].read_bytes()).hexdigest() in {
                h for i in items for h in i.images
            }
        elif "Write one multiple-choice question" in text or "true/false statement" in text:
            assert not any(m.images() for m in call)
            assert "- (none)" in text
    answered = [c for c in run.model.calls if "answer the question about it" in c[-1].text()]
    assert len(answered) == UNITS * SETTINGS.k_checks


def _fails_for(tags: set[str], reply: str) -> Override:
    def override(call: Call) -> str | None:
        return reply if _tag(call.description) in tags else None

    return override


def test_invalid_json_is_recorded_and_the_rest_is_built(tmp_path: Path) -> None:
    bad_description = ("Above and below", "hard")
    bad_question = description_tag("Left and right", "easy", 2)

    def descriptions(call: Call) -> str | None:
        fine_level = (
            call.prompt.split("Fine-grained aspect: **")[1].split("**")[0],
            call.prompt.split("Difficulty level: **")[1].split("**")[0],
        )
        if fine_level == bad_description and call.config.epoch == 1:
            return "Here is a lovely scene: a circle and a square."
        return None

    run = _run(
        tmp_path,
        {
            "description": descriptions,
            "mc": _fails_for({bad_question}, '{"question": "What colour?"'),
            "tf": _fails_for({bad_question}, "true"),
        },
    )
    check = run.report["self_check"]
    assert check["units"] == UNITS and check["dropped"] == 2 and len(run.items) == UNITS - 2

    # The description round that never gave JSON: recorded in its stage, never guessed.
    stored = get_artifact(
        run.store, SETTINGS.benchmark, "descriptions", "Relative position|Above and below|hard"
    )
    assert stored is not None
    first, second = stored["descriptions"]
    assert first["text"] is None and first["failure"].startswith("unparseable: ")
    assert second["text"] and second["round"] == 2
    no_text = run.units["Relative position|Above and below|hard|0"]
    assert no_text["status"] == "dropped"
    assert [h["decision"] for h in no_text["history"]] == ["no draft"] * SETTINGS.max_attempts
    assert all(h["reason"] == first["failure"] for h in no_text["history"])

    # The question that never parsed: the image passed its checks, the question did not come.
    no_question = run.units["Relative position|Left and right|easy|1"]
    assert no_question["status"] == "dropped"
    history = no_question["history"]
    assert [h["decision"] for h in history] == ["no question"] * SETTINGS.max_attempts
    assert all(
        h["score"] == 1.0 and h["reason"].startswith("question unparseable: ") for h in history
    )
    reasons = check["failure_reasons"]
    assert reasons[first["failure"]] == SETTINGS.max_attempts
    assert reasons[history[0]["reason"]] == SETTINGS.max_attempts
    # Re-asked with the error at most twice (a re-ask identical to the one before is served
    # from the cache); the unit's later attempts, with the same draft, pay nothing more.
    asked = [c for c in run.model.calls if bad_question in _prompt(c) and "Write one" in _prompt(c)]
    assert len(asked) in (2, 3) and "could not be used" in asked[-1][-1].text()

    units_with_items = {i.meta["unit"] for i in run.items}
    assert units_with_items == set(run.units) - {
        "Relative position|Above and below|hard|0",
        "Relative position|Left and right|easy|1",
    }


def test_duplicate_aspects_are_reasked_then_recorded(tmp_path: Path) -> None:
    def general(call: Call) -> str:
        # Always the same aspect twice: it is re-asked, then only the unique one is kept.
        body = [
            {"name": "Relative position", "description": "Where things are."},
            {"name": "Relative positions", "description": "Where things are, again."},
        ]
        return json.dumps({"aspects": body})

    def fine(call: Call) -> str | None:
        if call.reask:  # the replacement for the duplicate
            return json.dumps({"aspects": [{"name": "Betweenness", "description": "Middles."}]})
        body = [
            {"name": "Left and right", "description": "Sides."},
            {"name": "Left & right", "description": "Sides again."},
        ]
        return json.dumps({"aspects": body})

    run = _run(tmp_path, {"general": general, "fine": fine}, n=2)
    plan = run.report["plan"]
    assert [(a["general"], a["fine"]) for a in plan["aspects"]] == [
        ("Relative position", "Left and right"),
        ("Relative position", "Betweenness"),
    ]
    (problem,) = plan["problems"]
    assert problem.startswith("general aspects: 1 of 2 after re-asks")
    assert '"Relative positions" duplicates the existing aspect "Relative position"' in problem
    general_calls = [c for c in run.model.calls if "Break this capability" in _prompt(c)]
    assert len(general_calls) == 3  # the first ask and two re-asks
    reask = general_calls[-1][-1].text()
    assert '"Relative positions" duplicates the existing aspect "Relative position"' in reask
    fine_calls = [c for c in run.model.calls if "Break this general aspect" in _prompt(c)]
    assert len(fine_calls) == 2 and '"Left & right" duplicates' in fine_calls[1][-1].text()
    # The benchmark covers the aspects that survived, no more and no fewer.
    assert run.report["self_check"]["units"] == 2 * 2 * 2 == len(run.items)
    assert {i.meta["fine_aspect"] for i in run.items} == {"Left and right", "Betweenness"}


def test_unrenderable_scene_programs_are_caught_and_recorded(tmp_path: Path) -> None:
    dragon = description_tag("Left and right", "easy", 1)
    off_canvas = description_tag("Above and below", "hard", 2)
    fixed = description_tag("Left and right", "hard", 1)

    def scenes(call: Call) -> str | None:
        tag, program = _tag(call.description), scene_program(call.description)
        objects: list[dict[str, Any]] = program["objects"]  # type: ignore[assignment]
        if tag == dragon:
            objects[0]["category"] = "dragon"
        elif tag == off_canvas or (tag == fixed and not call.reask):
            objects[0]["position"] = {"x": 1.4, "y": 0.5}
        else:
            return None
        return json.dumps(program)

    run = _run(tmp_path, {"scene": scenes})
    check = run.report["self_check"]
    assert check["dropped"] == 2 and len(run.items) == UNITS - 2

    bad_category = _by_tag(run, dragon)
    assert bad_category["status"] == "dropped"
    reason = bad_category["history"][0]["reason"]
    assert reason.startswith("scene program unparseable: ") and "objects.0.category" in reason
    off = _by_tag(run, off_canvas)
    assert off["status"] == "dropped" and "objects.0.position.x" in off["history"][0]["reason"]
    for dropped in (bad_category, off):
        assert [h["decision"] for h in dropped["history"]] == ["no draft"] * SETTINGS.max_attempts
    assert check["failure_reasons"][reason] == SETTINGS.max_attempts

    # A program fixed on the re-ask is drawn as fixed.
    repaired = _by_tag(run, fixed)
    assert repaired["status"] == "accepted"
    assert repaired["image"] == _digest(scene_program(repaired["description"]))
    scene_calls = [
        c for c in run.model.calls if fixed in _prompt(c) and "into a scene program" in _prompt(c)
    ]
    assert len(scene_calls) == 2 and "objects.0.position.x" in scene_calls[1][-1].text()


def _failing_checks(tag: str, k: int = SETTINGS.k_checks, failing: int = -1) -> dict[str, Override]:
    """Self-check overrides: the description ``tag`` gets ``k`` checks of which the first
    ``failing`` (all by default) are about its label and answered "No." on every image."""
    failing = k if failing < 0 else failing

    def checks(call: Call) -> str | None:
        if _tag(call.description) != tag:
            return None
        body = [
            {
                "question": f"Is the label {tag} shown (check {i})?"
                if i < failing
                else f"Is there a circle (check {i})?",
                "kind": "yn",
                "options": [],
                "answer": "yes",
                "element": f"the label {tag}" if i < failing else "the circle",
            }
            for i in range(k)
        ]
        return json.dumps({"checks": body})

    def answers(call: Call) -> str | None:
        return "No." if f"label {tag}" in call.messages[0].text() else None

    return {"checks": checks, "answer": answers}


def test_an_element_failing_its_check_is_kept_out_of_the_question(tmp_path: Path) -> None:
    """One check in five fails on a hard image: accepted with that error (ζ = 0.8), and the
    question writer is told not to ask about it."""
    tag = description_tag("Left and right", "hard", 2)
    run = _run(tmp_path, _failing_checks(tag, k=5, failing=1), k_checks=5)
    unit = _by_tag(run, tag)
    assert unit["status"] == "accepted" and unit["score"] == 0.8
    (error,) = unit["errors"]
    assert error.startswith(f'the label {tag} (check "Is the label {tag} shown (check 0)?"')
    assert error.endswith('expected "yes", the image gave "no")')
    (item,) = [i for i in run.items if i.meta["unit"] == unit["meta"]["unit"]]
    assert item.meta["decision"] == "accept_with_errors" and item.meta["errors"] == [error]
    assert run.report["self_check"]["accepted_with_errors"] == 1
    (writer,) = [c for c in run.model.calls if tag in _prompt(c) and "Write one" in _prompt(c)]
    assert f"- {error}" in _prompt(writer) and "- (none)" not in _prompt(writer)


def test_a_scene_failing_its_self_check_is_rejected_and_dropped(tmp_path: Path) -> None:
    rejected = description_tag("Above and below", "easy", 1)
    configs: list[GenerationConfig] = []

    def scene(call: Call) -> None:
        if _tag(call.description) == rejected:
            configs.append(call.config)

    run = _run(tmp_path, {**_failing_checks(rejected), "scene": scene})
    unit = _by_tag(run, rejected)
    history = unit["history"]
    assert unit["status"] == "dropped"
    assert [h["decision"] for h in history] == ["reject"] * SETTINGS.max_attempts
    for entry in history:
        assert entry["score"] == 0.0 and entry["method"] == "examiner VQA"
        assert entry["errors"] and all(f"the label {rejected}" in e for e in entry["errors"])
    check = run.report["self_check"]
    assert check["rejected_renders"] == SETTINGS.max_attempts == check["renders"] - (UNITS - 1)
    assert check["dropped"] == 1 and len(run.items) == UNITS - 1
    assert check["failure_reasons"] == {"reject": SETTINGS.max_attempts}
    assert _tag(_description_of(run, unit)) == rejected


def _description_of(run: Run, unit: dict[str, Any]) -> str:
    key = unit["meta"]["unit"].rsplit("|", 1)[0]
    stored = get_artifact(run.store, SETTINGS.benchmark, "descriptions", key)
    assert stored is not None
    return str(stored["descriptions"][int(unit["meta"]["unit"].rsplit("|", 1)[1])]["text"])


def test_a_rejected_scene_is_redrawn_on_the_next_attempt(tmp_path: Path) -> None:
    """A new attempt must give a new image: the examiner is asked for the scene again (a
    sampled redraw, not the rejected program replayed from the cache)."""
    rejected = description_tag("Above and below", "easy", 1)
    configs: list[GenerationConfig] = []

    def scene(call: Call) -> None:
        if _tag(call.description) == rejected:
            configs.append(call.config)

    run = _run(tmp_path, {**_failing_checks(rejected), "scene": scene})
    unit = _by_tag(run, rejected)
    description = _description_of(run, unit)
    asked = [
        c
        for c in run.model.calls
        if rejected in _prompt(c) and "into a scene program" in _prompt(c)
    ]
    assert len(asked) == SETTINGS.max_attempts
    images = [h["image"] for h in unit["history"]]
    assert images == [_digest(scene_program(description, a)) for a in range(len(images))]
    assert len(set(images)) == SETTINGS.max_attempts
    # The redraws are sampled and seeded per unit and attempt, as image redraws are: requests
    # of their own, not the same bytes sent again.
    key = unit["meta"]["unit"]
    assert [(c.epoch, c.temperature, c.seed) for c in configs] == [(0, 0.0, None)] + [
        (a, 0.7, stable_seed(SETTINGS.seed, key, a, "draft") % 2**31)
        for a in range(1, SETTINGS.max_attempts)
    ]
    assert len({c.seed for c in configs}) == SETTINGS.max_attempts


def test_a_revoked_key_stops_generation_with_run_aborted(tmp_path: Path) -> None:
    """RunAborted, not an ExceptionGroup around it, so the CLI prints one line (exit 2)."""
    revoked = ProviderError("HTTP 401: invalid key", ErrorKind.FATAL, status_code=401)
    with pytest.raises(RunAborted, match="invalid key"):
        _run(tmp_path, {"answer": lambda call: revoked})
