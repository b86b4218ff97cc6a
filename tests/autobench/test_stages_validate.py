"""Stage 5's self-check: writing checks, answering them on the image, thresholds."""

import json

import pytest
from fakes import ScriptedModel

from lvlmbench.autobench.validate import (
    DEFAULT_ZETA,
    Check,
    CheckSet,
    Validation,
    answer_checks_on_image,
    decide,
    extract_check_answer,
    write_checks,
)
from lvlmbench.models import ErrorKind, ModelClient, ProviderError
from lvlmbench.types import ImagePart, Message, ModelOutput, Status

PNG = b"\x89PNG\r\n\x1a\nfake-image-bytes"


def yn(i: int, answer: str = "yes") -> dict:
    return {
        "question": f"Is object {i} present?",
        "kind": "yn",
        "options": [],
        "answer": answer,
        "element": f"object {i}",
    }


def checkset(n: int) -> CheckSet:
    return CheckSet.model_validate({"checks": [yn(i) for i in range(n)]})


def answering(wrong: set[int], unreadable: frozenset[int] = frozenset()):
    """A VQA stand-in: answers "Yes." except "no" for ``wrong`` and prose for ``unreadable``."""

    def step(messages: list[Message]) -> ModelOutput:
        text = messages[-1].text()
        i = int(text.split("Is object ")[1].split()[0])
        if i in unreadable:
            return ModelOutput(text="It is hard to say from this picture.")
        return ModelOutput(text="No" if i in wrong else "Yes.")

    return step


async def validate(checks: CheckSet, wrong: set[int], **kw) -> tuple[Validation, ScriptedModel]:
    model = ScriptedModel([answering(wrong, **kw) for _ in checks.checks])
    return await answer_checks_on_image(ModelClient(model, None), checks, PNG), model


async def test_write_checks_happy_path_truncates_extras_to_k():
    body = {"checks": [yn(i) for i in range(4)]}
    model = ScriptedModel([ModelOutput(text=json.dumps(body))])
    result = await write_checks(ModelClient(model, None), "A red cup on a table.", 3)
    assert result.ok and result.value is not None
    assert [c.element for c in result.value.checks] == ["object 0", "object 1", "object 2"]
    assert "A red cup on a table." in model.calls[0][-1].text()
    assert "exactly 3 simple questions" in model.calls[0][-1].text()


async def test_write_checks_too_few_is_reasked_then_unparseable():
    short = ModelOutput(text=json.dumps({"checks": [yn(0)]}))
    model = ScriptedModel([short, short])
    result = await write_checks(ModelClient(model, None), "desc", 3, max_reasks=1)
    assert result.status is Status.UNPARSEABLE and result.value is None
    assert result.calls == 2
    assert "at least 3" in (result.reason or "")


@pytest.mark.parametrize(
    "bad",
    [
        {**yn(0), "options": ["yes", "no"]},
        {**yn(0), "answer": "maybe"},
        {**yn(0), "kind": "mc", "options": ["red", "blue"], "answer": "green"},
        {**yn(0), "kind": "mc", "options": ["red", "Red"], "answer": "red"},
        {**yn(0), "kind": "mc", "options": ["red"], "answer": "red"},
    ],
)
def test_malformed_checks_are_rejected(bad):
    with pytest.raises(ValueError):
        Check.model_validate(bad)


def test_mc_answer_is_matched_to_its_option_text():
    check = Check.model_validate(
        {**yn(0), "kind": "mc", "options": ["Red", "Blue"], "answer": " red "}
    )
    assert check.answer == "Red"


async def test_answers_are_given_on_the_image_and_score_is_correct_over_k():
    validation, model = await validate(checkset(5), wrong={3})
    assert validation.score == pytest.approx(0.8)
    assert len(model.calls) == 5
    for call in model.calls:
        images = [p for m in call for p in m.images()]
        assert len(images) == 1 and images[0].read_bytes() == PNG
        assert all(m.role != "system" for m in call)
    failed = [c for c in validation.checks if not c.correct]
    assert [c.element for c in failed] == ["object 3"]
    assert failed[0].answered == "no" and failed[0].status is Status.OK
    assert validation.errors == [
        'object 3 (check "Is object 3 present?": expected "yes", the image gave "no")'
    ]
    assert decide(validation, 0.8) == "accept_with_errors"


async def test_thresholds_reject_accept_with_errors_and_accept():
    six, _ = await validate(checkset(5), wrong={0, 1})
    assert six.score == pytest.approx(0.6)
    assert decide(six, DEFAULT_ZETA["medium"]) == "reject"
    eight, _ = await validate(checkset(5), wrong={4})
    assert decide(eight, DEFAULT_ZETA["hard"]) == "accept_with_errors"
    assert decide(eight, DEFAULT_ZETA["easy"]) == "reject"
    full, _ = await validate(checkset(5), wrong=set())
    assert full.score == 1.0 and full.errors == []
    assert decide(full, DEFAULT_ZETA["easy"]) == "accept"
    assert decide(full, 0.8) == "accept"
    with pytest.raises(ValueError):
        decide(full, 1.5)


async def test_unreadable_answer_counts_as_failed_and_is_recorded():
    validation, _ = await validate(checkset(4), wrong=set(), unreadable=frozenset({2}))
    assert validation.score == pytest.approx(0.75)
    bad = validation.checks[2]
    assert bad.status is Status.UNPARSEABLE and bad.answered is None and not bad.correct
    assert bad.raw == "It is hard to say from this picture."
    assert validation.errors == [
        'object 2 (check "Is object 2 present?": expected "yes", the image gave no readable answer)'
    ]
    assert validation.status is Status.OK


async def test_failed_call_is_a_failed_check_and_marks_the_validation():
    model = ScriptedModel([ProviderError("bad request", ErrorKind.FATAL, status_code=400)])
    validation = await answer_checks_on_image(ModelClient(model, None), checkset(1), PNG)
    assert validation.score == 0.0
    assert validation.checks[0].status is Status.ERROR
    assert validation.status is Status.ERROR and "bad request" in (validation.reason or "")


def test_mc_checks_are_asked_with_lettered_options():
    check = Check.model_validate(
        {**yn(0), "kind": "mc", "options": ["one", "two", "three"], "answer": "two"}
    )
    for reply, expected in [
        ("B", "two"),
        ("(B)", "two"),
        ("B. two", "two"),
        ("b) two", "two"),
        ("Answer: C", "three"),
        ("Two.", "two"),
        ("D", None),
        ("B two", None),
        ("Both A and B", None),
        ("", None),
    ]:
        assert extract_check_answer(check, reply) == expected, reply


def test_yes_no_extraction_is_strict():
    check = Check.model_validate(yn(0))
    for reply, expected in [
        ("Yes", "yes"),
        ("no.", "no"),
        ("**Yes**", "yes"),
        ("Yes, there is a red cup.", "yes"),
        ("The answer is: No", "no"),
        ("yes or no", None),
        ("Maybe", None),
        ("I see a cup, so yes", None),
    ]:
        assert extract_check_answer(check, reply) == expected, reply


async def test_mc_prompt_lists_letters_and_image_comes_first():
    check = Check.model_validate(
        {**yn(0), "kind": "mc", "options": ["red", "blue"], "answer": "blue"}
    )
    model = ScriptedModel([ModelOutput(text="B")])
    validation = await answer_checks_on_image(
        ModelClient(model, None), CheckSet(checks=[check]), PNG
    )
    message = model.calls[0][0]
    assert isinstance(message.content[0], ImagePart)
    assert "A. red\nB. blue" in message.text()
    assert validation.score == 1.0
