"""Properties of answer extraction and of the choice prompt, over generated inputs."""

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from lvlmbench.choice import ParsedChoice, extract_choice, parse_choice_prompt, render_choice_prompt
from lvlmbench.prompts import render_prompt
from lvlmbench.types import BenchmarkItem, Status

VOCAB = [
    "red",
    "blue",
    "green",
    "yellow",
    "two cats",
    "a dog",
    "the left side",
    "under the table",
    "3",
    "42",
    "sunny",
    "foggy",
    "a small boat",
    "three birds",
    "behind the tree",
    "square",
]
LETTER_TEMPLATES = [
    "{L}",
    "{l}",
    "({L})",
    "({l})",
    "{L}.",
    "{L})",
    "{l})",
    "[{L}]",
    "**{L}**",
    "{L}: {text}",
    "{L}. {text}",
    "({L}) {text}",
    "Option {L}",
    "Answer: {L}",
    "answer: {l}",
    "**Answer:** {L}",
    "The answer is {L}.",
    "The answer is ({L}) {text}.",
    "The correct answer is {L}.",
    "Option {L} is correct.",
    "I choose {L}.",
    "Final answer: {L}",
    "\\boxed{{{L}}}",
    '{{"answer": "{L}"}}',
    "The correct option is **{L}**.",
    "{L} is the correct answer.",
]
REASONING = [
    "Option {M} says {text}, which seems unlikely.",
    "{M} is tempting.",
    "The answer might be {M}.",
    "({M}) could fit at first glance.",
    "I first thought {M}.",
    "Option {M} is correct if we ignore the shadow.",
    "The answer is {M}.",
    "Let me reconsider.",
    "Looking at the image, the object is near the window.",
    "**{M})** {text}: no.",
]


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, str]:
    n = draw(st.integers(2, 6))
    texts = draw(st.lists(st.sampled_from(VOCAB), min_size=n, max_size=n, unique=True))
    return dict(zip(string.ascii_uppercase, texts, strict=False))


@given(option_sets(), st.data())
def test_any_letter_in_any_common_form_is_extracted(options: dict[str, str], data: st.DataObject):
    letter = data.draw(st.sampled_from(sorted(options)))
    template = data.draw(st.sampled_from(LETTER_TEMPLATES))
    text = template.format(L=letter, l=letter.lower(), text=options[letter])
    got = extract_choice(text, "mc", options)
    assert (got.status, got.answer) == (Status.OK, letter), (text, got)


@given(option_sets(), st.data())
def test_final_answer_wins_over_reasoning_that_names_other_letters(
    options: dict[str, str], data: st.DataObject
):
    letter = data.draw(st.sampled_from(sorted(options)))
    steps = data.draw(
        st.lists(
            st.tuples(st.sampled_from(REASONING), st.sampled_from(sorted(options))), max_size=6
        )
    )
    lines = [step.format(M=m, text=options[m]) for step, m in steps]
    text = "\n".join([*lines, f"Final answer: {letter}"])
    got = extract_choice(text, "mc", options)
    assert (got.status, got.answer) == (Status.OK, letter), (text, got)


SENTENCES = [
    "The picture shows {text}.",
    "Looking closely, the picture shows {text} near the window.",
    "Clearly {text}: that is what the photo shows.",
]
NEGATED_SENTENCES = [
    "The picture does not show {text}.",
    "It isn't {text}.",
    "If it were {text}, the shadow would differ.",
    "Maybe {text}.",
    "Perhaps {text}, or perhaps not.",
]


@given(option_sets(), st.data())
def test_one_option_text_in_a_sentence_is_that_option(options: dict[str, str], data: st.DataObject):
    letter = data.draw(st.sampled_from(sorted(options)))
    text = data.draw(st.sampled_from(SENTENCES)).format(text=options[letter])
    got = extract_choice(text, "mc", options)
    assert (got.status, got.answer) == (Status.OK, letter), (text, got)


@given(option_sets(), st.data())
def test_negated_hypothetical_or_hedged_option_text_is_no_answer(
    options: dict[str, str], data: st.DataObject
):
    letter = data.draw(st.sampled_from(sorted(options)))
    text = data.draw(st.sampled_from(NEGATED_SENTENCES)).format(text=options[letter])
    got = extract_choice(text, "mc", options)
    assert got.status is Status.UNPARSEABLE and got.answer is None, (text, got)


INTROS = ["", "Let's look at the options:\n", "The options are:\n", "Choices:\n", "Options:\n\n"]
LIST_FORMS = [
    "{L}. {text}",
    "({L}) {text}",
    "{l}) {text}",
    "{L}: {text}",
    "- {L}. {text}",
    "**{L}.** {text}",
    "Option {L}: {text}",
]


def _restated(options: dict[str, str], intro: str, form: str) -> tuple[str, list[int]]:
    """The options copied out as a list after ``intro``, and the offset just past each line's
    letter."""
    text, ends = intro, []
    for letter, option in options.items():
        line = form.format(L=letter, l=letter.lower(), text=option)
        ends.append(len(text) + line.lower().index(letter.lower()) + 1)
        text += line + "\n"
    return text.rstrip("\n"), ends


@given(option_sets(), st.sampled_from(INTROS), st.sampled_from(LIST_FORMS), st.data())
def test_a_restated_options_list_cut_anywhere_is_never_an_answer(
    options: dict[str, str], intro: str, form: str, data: st.DataObject
):
    full, letter_ends = _restated(options, intro, form)
    cut = data.draw(st.integers(0, len(full)))
    text = full[:cut]
    # Cut by the token limit: no prefix of the list is an answer, whatever it ends on.
    got = extract_choice(text, "mc", options, truncated=True)
    assert got.status is Status.UNPARSEABLE and got.answer is None and got.reason, (text, got)
    # Not flagged as cut: once a line announced the options, or a second option line began,
    # the text is a list, not a choice ("A. red" alone is answer A).
    if (intro and cut >= letter_ends[0]) or cut >= letter_ends[1]:
        got = extract_choice(text, "mc", options)
        assert got.status is Status.UNPARSEABLE and got.answer is None, (text, got)
        assert "restates the options" in (got.reason or ""), (text, got)


@given(option_sets(), st.sampled_from(INTROS), st.sampled_from(LIST_FORMS), st.data())
def test_a_choice_after_a_restated_list_is_read(
    options: dict[str, str], intro: str, form: str, data: st.DataObject
):
    full, _ = _restated(options, intro, form)
    letter = data.draw(st.sampled_from(sorted(options)))
    ending = data.draw(st.sampled_from(["\n\n{L}", "\nAnswer: {L}", "\n\nI choose ({L})."]))
    text = full + ending.format(L=letter)
    got = extract_choice(text, "mc", options)
    assert (got.status, got.answer) == (Status.OK, letter), (text, got)
    # An answer line after the list is no option line: being cut later does not void it.
    if ending != "\n\n{L}":
        assert extract_choice(text, "mc", options, truncated=True).answer == letter


WORD = st.from_regex(r"[A-Za-z][a-z]{1,8}", fullmatch=True)
# Marker words and punctuation, so generated text looks like answers: "Answer: the is so".
NOISE = st.sampled_from(
    [
        ",",
        ".",
        "!",
        "?",
        "\n",
        "-",
        ":",
        "42.5",
        "answer",
        "Answer:",
        "is",
        "final",
        "option",
        "choose",
        "correct",
        "the",
        "so",
        "I",
        "(I)",
        "**",
        "\\boxed{",
        "}",
        '{"answer":',
        '"',
        "not",
        "either",
        "or",
    ]
)
FILLER = st.lists(st.one_of(WORD, NOISE), max_size=30).map(" ".join)
# Standalone letters that could be option keys (the pronoun "I" never is: at most six options).
KEY_LETTER = re.compile(r"(?<![A-Za-z])[A-HJ-Za-hj-z](?![A-Za-z])")


@given(option_sets(), FILLER)
def test_text_without_letters_or_option_texts_never_yields_an_answer(
    options: dict[str, str], text: str
):
    lowered = f" {text.lower()} "
    if any(re.search(rf"\b{re.escape(o.split()[-1])}\b", lowered) for o in options.values()):
        return  # mentions an option's text: covered by the table tests
    assert not KEY_LETTER.search(text)
    got = extract_choice(text, "mc", options)
    assert got.status is Status.UNPARSEABLE and got.answer is None and got.reason


TF_WORDS = re.compile(r"\b(true|false|yes|no|correct|incorrect|right|wrong)\b", re.I)


@given(FILLER)
def test_true_false_needs_a_verdict_word(text: str):
    got = extract_choice(text, "tf", {})
    if not TF_WORDS.search(text):
        assert got.status is Status.UNPARSEABLE and got.answer is None


@given(
    st.sampled_from(["true", "false"]),
    st.sampled_from(
        [
            "{v}",
            "{V}",
            "{V}.",
            "**{V}**",
            "Answer: {v}",
            "The statement is {v}.",
            "The answer is {v}",
            '{{"answer": "{v}"}}',
            "Final answer: {V}",
            "Hmm, it might be true or false.\nFinal answer: {v}",
        ]
    ),
)
def test_true_false_forms(value: str, template: str):
    text = template.format(v=value, V=value.capitalize())
    assert extract_choice(text, "tf", {}).answer == value


def test_not_true_reads_false():
    assert extract_choice("That is not true.", "tf", {}).answer == "false"
    assert extract_choice("not false", "tf", {}).answer == "true"


QUESTION = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=80).filter(
    lambda q: q.strip()
)
OPTION_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=30)


@settings(max_examples=200)
@given(QUESTION, st.lists(OPTION_TEXT, min_size=2, max_size=6))
def test_mc_prompt_round_trip(question: str, texts: list[str]):
    options = dict(zip(string.ascii_uppercase, texts, strict=False))
    item = BenchmarkItem(
        id="x", benchmark="b", question=question, kind="mc", options=options, answer="A"
    )
    prompt = render_choice_prompt(item)
    expected = ParsedChoice(
        question.strip(), {k: " ".join(v.split()) for k, v in options.items()}, "mc"
    )
    assert parse_choice_prompt(prompt) == expected
    assert (
        render_choice_prompt(
            item.model_copy(update={"question": expected.question, "options": expected.options})
        )
        == prompt
    )


@given(QUESTION)
def test_tf_prompt_round_trip(question: str):
    item = BenchmarkItem(id="x", benchmark="b", question=question, kind="tf", answer="true")
    assert parse_choice_prompt(render_choice_prompt(item)) == ParsedChoice(
        question.strip(), {}, "tf"
    )


def test_prompt_layout_and_wrapping():
    item = BenchmarkItem(
        id="x",
        benchmark="b",
        question="What colour is the ball?",
        kind="mc",
        options={"B": "blue", "A": "red", "C": "green", "D": "a\nyellow  thing"},
    )
    prompt = render_choice_prompt(item)
    assert prompt.splitlines()[:7] == [
        "What colour is the ball?",
        "",
        "A. red",
        "B. blue",
        "C. green",
        "D. a yellow thing",
        "",
    ]
    assert "letter" in prompt.splitlines()[-1]
    wrapped = render_prompt("eval/with_description.md", description="A red ball.", prompt=prompt)
    parsed = parse_choice_prompt(wrapped)
    assert parsed is not None and parsed.kind == "mc"
    assert parsed.question.endswith("What colour is the ball?")
    assert parse_choice_prompt("Describe the image in detail.") is None
    assert parse_choice_prompt("") is None


def test_render_rejects_what_it_cannot_show():
    import pytest

    with pytest.raises(ValueError, match="open"):
        render_choice_prompt(BenchmarkItem(id="x", benchmark="b", question="Describe it."))
    with pytest.raises(ValueError, match="lettered"):
        render_choice_prompt(
            BenchmarkItem(
                id="x", benchmark="b", question="q", kind="mc", options={"A": "x", "C": "y"}
            )
        )
    with pytest.raises(ValueError, match="empty"):
        render_choice_prompt(BenchmarkItem(id="x", benchmark="b", question=" ", kind="tf"))
