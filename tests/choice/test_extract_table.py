"""Answer extraction on outputs the way real examinees write them (GPT-4o, Claude, Gemini, LLaVA,
Qwen-VL, small models). ``None`` means the output must be UNPARSEABLE."""

import pytest

from lvlmbench.choice import extract_choice, score_choice
from lvlmbench.types import BenchmarkItem, Status

COLOURS = {"A": "red", "B": "blue", "C": "green", "D": "yellow"}
SCENE = {"A": "A dog on a sofa", "B": "A cat on the mat", "C": "Two birds", "D": "An empty room"}
COUNTS = {"A": "2", "B": "3", "C": "4", "D": "5"}

MC_CASES: list[tuple[str, str | None]] = [
    # Bare letters in every common wrapper (LLaVA, Qwen-VL, small models).
    ("C", "C"),
    ("c", "C"),
    ("B.", "B"),
    ("(B)", "B"),
    ("B)", "B"),
    ("c)", "C"),
    ("[D]", "D"),
    ("**B**", "B"),
    (" D\n", "D"),
    ("B: blue", "B"),
    ("B. blue", "B"),
    ("(C) green", "C"),
    ("Option B", "B"),
    ("A. red\n\nThe ball on the left is red.", "A"),
    # Explicit markers (GPT-4o, Claude, Gemini).
    ("The answer is (C) green.", "C"),
    ("Answer: B", "B"),
    ("**Answer:** B", "B"),
    ("ANSWER: d", "D"),
    ("The correct answer is B.", "B"),
    ("The correct answer is **C) green**.", "C"),
    ("Option D is correct.", "D"),
    ("(A) is the correct answer because the ball is red.", "A"),
    ("I would choose B because the sky reflects on the ball.", "B"),
    ("My answer is option C.", "C"),
    ("Based on the image, the answer is B because the car is clearly blue.", "B"),
    ("Final Answer: \\boxed{D}", "D"),
    ("The result is $\\boxed{\\text{B}}$.", "B"),
    ('{"answer": "B"}', "B"),
    ('```json\n{"answer": "C", "confidence": 0.8}\n```', "C"),
    ("### Answer\nB", "B"),
    ("The ball is green, which corresponds to (C).", "C"),
    ("I believe it's C.", "C"),
    ("It is A cat, I think.", None),
    ("C. green\n\nExplanation: the ball is green, not blue (B) or red (A).", "C"),
    ("The ball in the image appears to be **green**, so the correct choice is **C. green**.", "C"),
    ("Answer: (C) green\nConfidence: high", "C"),
    # Chain of thought naming several letters before the final one.
    ("A is tempting but the answer is C", "C"),
    (
        "Let's look at each option. A) red: the ball is not red. B) blue: no. C) green: yes, the "
        "ball is green.\nSo the answer is C.",
        "C",
    ),
    ("The answer is B. Let me reconsider... the shadow is green, not blue.\nFinal answer: D", "D"),
    (
        "Step 1: the ball is in the foreground.\nStep 2: options A and B describe warm colours.\n"
        "Step 3: the ball looks cool-toned.\n\n**Final Answer: C**",
        "C",
    ),
    (
        "- **A) red**: no\n- **B) blue**: no\n- **C) green**: matches the ball\n- **D) yellow**: no"
        "\n\nThe correct option is C.",
        "C",
    ),
    ("A. red\nB. blue\nC. green\nD. yellow\nAnswer: B", "B"),
    ("A. red\nB. blue\nC. green\nD. yellow\n\nC", "C"),
    ("None of A, B or D is correct; the ball is green, so the answer is C.", "C"),
    ("Even if the ball looks blue at first, the answer is C.", "C"),
    ("Neither A nor D is correct.", None),
    ("The ball is green, so (A) is wrong. I would not choose D. I choose C.", "C"),
    ("So (B) is incorrect.", None),
    ("The colour is clearly not **(A)**.", None),
    ("Looking at the ball, its colour matches **(D)**", "D"),
    # Option text only.
    ("green", "C"),
    ("Yellow.", "D"),
    ("The answer is blue.", "B"),
    ('"red"', "A"),
    # Refusals, hedges, contradictions, non-answers.
    ("", None),
    ("   \n", None),
    ("**\n```", None),
    ("I cannot see the image, so I can't answer this question.", None),
    ("I'm sorry, but I can't help with identifying that.", None),
    ("A or B", None),
    ("It could be either A or C.", None),
    ("The answer is B or C.", None),
    ("The answer is B/C.", None),
    ("A. red\nB. blue\nC. green\nD. yellow", None),
    ("The answer is E.", None),
    ("The answer is (C) blue.", None),
    ("There is a ball in the picture and it is round.", None),
    ("A cat sits on the mat next to the window.", None),
    ("I think the picture is blurry.", None),
    ("Both (A) and (C) could be right.", None),
    ("None of the options match the image.", None),
    ("The answer is not A.", None),
    ("If B is correct then the ball is blue, but I cannot tell.", None),
    ("Blueberries are on the table.", None),
    # One option's text in a sentence, with the negation and hedge guards.
    ("The ball is green.", "C"),
    ("Looking at the picture, the ball on the left is clearly yellow.", "D"),
    ("The ball is green, not blue.", "C"),
    ("It isn't red; the ball is green.", "C"),
    ("The ball looks green (C).", "C"),
    ("The ball is not green.", None),
    ("The ball is green or blue.", None),
    ("Maybe the ball is green.", None),
    ("The ball could be green.", None),
    ("The ball is green and the box is blue.", None),
    ("The ball looks green (B).", None),
    ("Green is wrong here.", None),
    ("If the ball were green it would match the grass.", None),
    ("I can't tell whether the ball is green.", None),
    # Lists of letters choose none.
    ("A, B, or C", None),
    ("The answer is A, B, or C.", None),
    ("It could be A, B, or C.", None),
    ("Answer: A, B and C", None),
    ("The answer is B, A is wrong.", "B"),
]

CJK_CASES: list[tuple[str, str | None]] = [
    ("答案是 C", "C"),
    ("答案：C", "C"),
    ("选项 C", "C"),
    ("正确答案是（C）。", "C"),
    ("答案：Ｂ", "B"),
    ("最终答案是D", "D"),
    ("我选C", "C"),
    ("故选B。", "B"),
    ("选项A是错的，选项C是正确的。", "C"),
    ("选项B不正确，答案是A", "A"),
    ("答案不是A", None),
    ("我不选A", None),
    ("答案是A或B", None),
    ("答案是选项A还是选项B，无法确定。", None),
    ("球是绿色的。", "C"),  # options in Chinese: see CJK_OPTIONS
    ("球不是红色，是绿色。", "C"),
    ("球可能是绿色的。", None),
    ("如果球是绿色的，答案就不同。", None),
]
CJK_OPTIONS = {"A": "红色", "B": "蓝色", "C": "绿色", "D": "黄色"}

# MMMU-style items run to I: "I" is then a letter, not the pronoun.
NINE = {
    k: v
    for k, v in zip(
        "ABCDEFGHI",
        [*COLOURS.values(), "pink", "grey", "white", "black", "dark brown"],
        strict=True,
    )
}
NINE_CASES: list[tuple[str, str | None]] = [
    ("I", "I"),
    ("Answer: I", "I"),
    ("The answer is (H).", "H"),
    ("The ball is dark brown.", "I"),
    ("The ball is white, not black.", "G"),
    ("It is G, H, or I.", None),
]

SCENE_CASES: list[tuple[str, str | None]] = [
    ("A cat on the mat", "B"),
    ("The correct answer is: a cat on the mat.", "B"),
    ("A dog is sitting on a sofa in this picture.", None),
    ("A", "A"),
    ("I", None),
]

COUNT_CASES: list[tuple[str, str | None]] = [
    ("3", "B"),
    ("There are 4 apples. Answer: C", "C"),
    ("The answer is 5.", "D"),
    ("The answer is 4.5.", None),
    ("2", "A"),
]

TF_CASES: list[tuple[str, str | None]] = [
    ("True", "true"),
    ("false.", "false"),
    ("Yes", "true"),
    ("No.", "false"),
    ("**True**", "true"),
    ("Yes, the cat is sitting on the mat.", "true"),
    ("No, there is no cat in the image.", "false"),
    ("The statement is true.", "true"),
    ("The statement is not true: the cat is under the table.", "false"),
    ("This is incorrect; the mug is red.", "false"),
    ("That's correct.", "true"),
    ("Answer: False", "false"),
    ('{"answer": true}', "true"),
    (
        "The cat seems to be on the mat at first, but it is actually on the rug.\n"
        "Final answer: false",
        "false",
    ),
    ("It isn't true that the ball is blue.", "false"),
    ("True. The car is red, as the statement says.", "true"),
    ("The claim holds, it is true.", "true"),
    ("Looking closely, the dog is on the left.\n\nFalse", "false"),
    ("", None),
    ("**", None),
    ("True or false?", None),
    ("It could be true or false.", None),
    ("I cannot see the image.", None),
    ("It is no surprise that dogs like sofas.", None),
    ("The ball is right next to the tree.", None),
    ("That's right.", "true"),
    ("It is wrong!", "false"),
    ("Maybe.", None),
]


def _check(text: str, kind: str, options: dict[str, str], expected: str | None) -> None:
    got = extract_choice(text, kind, options)  # type: ignore[arg-type]
    if expected is None:
        assert got.status is Status.UNPARSEABLE and got.answer is None, got
        assert got.reason
    else:
        assert (got.status, got.answer) == (Status.OK, expected), got
        assert got.reason is None and got.method != "none"


@pytest.mark.parametrize(("text", "expected"), MC_CASES)
def test_mc_colours(text: str, expected: str | None) -> None:
    _check(text, "mc", COLOURS, expected)


@pytest.mark.parametrize(("text", "expected"), CJK_CASES)
def test_mc_chinese(text: str, expected: str | None) -> None:
    _check(text, "mc", CJK_OPTIONS, expected)


@pytest.mark.parametrize(("text", "expected"), NINE_CASES)
def test_mc_nine_options(text: str, expected: str | None) -> None:
    _check(text, "mc", NINE, expected)


@pytest.mark.parametrize(("text", "expected"), SCENE_CASES)
def test_mc_sentence_options(text: str, expected: str | None) -> None:
    _check(text, "mc", SCENE, expected)


@pytest.mark.parametrize(("text", "expected"), COUNT_CASES)
def test_mc_numeric_options(text: str, expected: str | None) -> None:
    _check(text, "mc", COUNTS, expected)


@pytest.mark.parametrize(("text", "expected"), TF_CASES)
def test_true_false(text: str, expected: str | None) -> None:
    _check(text, "tf", {}, expected)


HEARTS = {
    "A": "the purple heart",
    "B": "the brown heart",
    "C": "the red heart",
    "D": "the pink heart",
}
XYZ = {"A": "x", "B": "y", "C": "z"}

# Replies that copy the options out: a line continuing the list is a list, not a choice.
RESTATED_CASES: list[tuple[str, dict[str, str], str | None]] = [
    ("Let's look at the options:\nA. the purple heart\nB. the brown heart\nC.", HEARTS, None),
    ("The options are:\nA. x\nB.", XYZ, None),
    ("The options are:\nA. x", XYZ, None),
    ("Choices:\n(A) x\n(B", XYZ, None),
    ("A. red\nB. blue\nC. gre", COLOURS, None),
    ("A\nB", XYZ, None),
    ("- A. red\n- B. blue\n- C.", COLOURS, None),
    # What follows the list is read as usual.
    ("The options are:\nA. red\nB. blue\nC. green\nD. yellow\n\nC", COLOURS, "C"),
    ("Options:\nA. red\nB. blue\nC. green\nD. yellow\nAnswer: B", COLOURS, "B"),
    ("Options:\nA. red\nB. blue\nC. green\nD. yellow\nThe ball is green.", COLOURS, "C"),
    # One option line is an answer; so is one after a line that answers, not announces.
    ("A. red", COLOURS, "A"),
    ("Looking at the options, the answer is:\nC. green", COLOURS, "C"),
    ("B. blue\nD. yellow", COLOURS, None),  # two options, no order: listed, not chosen
]


@pytest.mark.parametrize(("text", "options", "expected"), RESTATED_CASES)
def test_restated_option_lists(text: str, options: dict[str, str], expected: str | None) -> None:
    _check(text, "mc", options, expected)


def test_a_restated_list_says_why_it_is_no_answer() -> None:
    got = extract_choice(
        "Let's look at the options:\nA. the purple heart\nB. the brown heart\nC.", "mc", HEARTS
    )
    assert got.reason == "restates the options (A, B, C) without choosing one"


# Replies cut by the token limit: an option alone (or with its text) on the last line is no
# evidence; anything before it, or an answer marker on it, still is.
CUT_CASES: list[tuple[str, str | None]] = [
    ("Let me think about the colour.\nB", None),
    ("Let me think about the colour.\n**(B)**", None),
    ("Let me think.\nB. blu", None),
    ("A. red\nOpt", None),
    ("Answer: C", "C"),
    ("The answer is C because the ball", "C"),
    ("C. green\n\nExplanation: the ball", "C"),
    ("The ball is green.\nC", "C"),  # the sentence before the cut says green
]


@pytest.mark.parametrize(("text", "expected"), CUT_CASES)
def test_cut_replies(text: str, expected: str | None) -> None:
    got = extract_choice(text, "mc", COLOURS, truncated=True)
    if expected is None:
        assert got.status is Status.UNPARSEABLE and got.answer is None, got
        assert "token limit" in (got.reason or ""), got
    else:
        assert (got.status, got.answer) == (Status.OK, expected), got


def test_a_lone_letter_counts_when_the_reply_was_not_cut() -> None:
    assert extract_choice("Let me think about the colour.\nB", "mc", COLOURS).answer == "B"
    assert extract_choice("A. red\nOpt", "mc", COLOURS).answer == "A"


def test_table_is_large_enough() -> None:
    assert len(MC_CASES) + len(SCENE_CASES) + len(COUNT_CASES) + len(TF_CASES) >= 50


def test_letters_outside_the_options_never_count() -> None:
    three = {"A": "red", "B": "blue", "C": "green"}
    assert extract_choice("D", "mc", three).status is Status.UNPARSEABLE
    assert extract_choice("Answer: D", "mc", three).reason == (
        "answer D is not one of the options ['A', 'B', 'C']"
    )


def test_reasons_name_the_problem() -> None:
    assert "hedges between A and B" in (extract_choice("A or B", "mc", COLOURS).reason or "")
    assert "refusal" in (extract_choice("I'm sorry, I can't see it.", "mc", COLOURS).reason or "")
    assert extract_choice("", "mc", COLOURS).reason == "empty answer"
    assert extract_choice("B", "mc", {}).status is Status.UNPARSEABLE


def test_open_items_have_no_choice_to_extract() -> None:
    with pytest.raises(ValueError, match="mc or tf"):
        extract_choice("A", "open", COLOURS)  # type: ignore[arg-type]


def test_ambiguous_option_texts_are_not_matched_by_text() -> None:
    twins = {"A": "red", "B": "Red", "C": "green", "D": "blue"}
    assert extract_choice("red", "mc", twins).status is Status.UNPARSEABLE
    assert extract_choice("B", "mc", twins).answer == "B"


def test_score_choice() -> None:
    item = BenchmarkItem(
        id="1", benchmark="b", question="q", kind="mc", options=COLOURS, answer="C"
    )
    assert score_choice(item, extract_choice("Answer: C", "mc", COLOURS)) is True
    assert score_choice(item, extract_choice("Answer: A", "mc", COLOURS)) is False
    assert score_choice(item, extract_choice("A or C", "mc", COLOURS)) is None
    tf = BenchmarkItem(id="2", benchmark="b", question="q", kind="tf", answer="false")
    assert score_choice(tf, extract_choice("No.", "tf", {})) is True
    with pytest.raises(ValueError, match="open-ended"):
        score_choice(
            BenchmarkItem(id="3", benchmark="b", question="q"), extract_choice("A", "mc", COLOURS)
        )
