"""Stage 6: questions from the description and errors only, with checked drafts."""

import json

import pytest
from fakes import ScriptedModel

from lvlmbench.autobench.questions import QuestionDraft, write_question
from lvlmbench.models import ModelClient
from lvlmbench.types import ImagePart, ModelOutput, Status

DESCRIPTION = "A red cup stands to the left of a white plate on a wooden table."
ERRORS = ['the white plate (check "Is the plate white?": expected "yes", the image gave "no")']


def reply(**body) -> ModelOutput:
    return ModelOutput(text=json.dumps(body))


MC = {
    "question": "What colour is the cup?",
    "kind": "mc",
    "correct": "red",
    "distractors": ["blue", "green", "yellow"],
}
TF = {"question": "The cup is to the right of the plate.", "kind": "tf", "correct": "False"}


async def test_mc_question_is_written_from_description_and_errors_only():
    model = ScriptedModel([reply(**MC)])
    result = await write_question(ModelClient(model, None), DESCRIPTION, ERRORS, "easy", "mc")

    assert result.ok and result.value is not None
    assert type(result.value) is QuestionDraft
    assert result.value.correct == "red" and len(result.value.distractors) == 3
    messages = model.calls[0]
    assert not any(isinstance(p, ImagePart) for m in messages for p in m.content)
    prompt = messages[-1].text()
    assert DESCRIPTION in prompt and ERRORS[0] in prompt
    assert "**easy**" in prompt


async def test_tf_question_normalises_its_key_and_no_errors_are_listed_as_none():
    model = ScriptedModel([reply(**TF)])
    result = await write_question(ModelClient(model, None), DESCRIPTION, [], "hard", "tf")

    assert result.value is not None and result.value.correct == "false"
    assert result.value.distractors == []
    assert "- (none)" in model.calls[0][-1].text()
    assert "true/false statement" in model.calls[0][-1].text()


async def test_focus_is_optional_and_rendered_when_given():
    model = ScriptedModel([reply(**MC)])
    await write_question(
        ModelClient(model, None), DESCRIPTION, [], "medium", "mc", focus="colour recognition"
    )
    assert "The question should test this: colour recognition" in model.calls[0][-1].text()


@pytest.mark.parametrize(
    "bad",
    [
        {**MC, "distractors": ["blue", "green"]},
        {**MC, "distractors": ["blue", "green", "yellow", "pink"]},
        {**MC, "distractors": ["blue", "Blue", "green"]},
        {**MC, "distractors": ["blue", "green", "Red."]},
        {**MC, "distractors": ["blue", "green", "  "]},
        {**TF, "correct": "maybe"},
        {**TF, "distractors": ["true"]},
        {**MC, "correct": ""},
    ],
)
def test_draft_constraints(bad):
    with pytest.raises(ValueError):
        QuestionDraft.model_validate(bad)


async def test_bad_draft_is_reasked_then_recorded_unparseable():
    bad = reply(**{**MC, "distractors": ["red", "green", "blue"]})
    model = ScriptedModel([bad, bad, bad])
    result = await write_question(ModelClient(model, None), DESCRIPTION, ERRORS, "easy", "mc")

    assert result.status is Status.UNPARSEABLE and result.value is None
    assert result.calls == 3
    assert "correct answer" in (result.reason or "")
    # the re-ask repeats the validation error to the examiner
    assert "correct answer" in model.calls[1][-1].text()


async def test_wrong_kind_is_reasked_and_fixed():
    model = ScriptedModel([reply(**TF), reply(**MC)])
    result = await write_question(ModelClient(model, None), DESCRIPTION, ERRORS, "easy", "mc")
    assert result.ok and result.value is not None and result.value.kind == "mc"
    assert result.calls == 2


async def test_unknown_kind_is_a_usage_error():
    with pytest.raises(ValueError, match="kind"):
        await write_question(ModelClient(ScriptedModel(), None), "d", [], "easy", "open")  # type: ignore[arg-type]
