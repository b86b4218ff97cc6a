"""The weightless examinees, through the registry and the model client like any other model."""

import io

import pytest
from PIL import Image

import lvlmbench.baselines  # noqa: F401  (registers baseline/...)
from lvlmbench.autobench.balance import ChoiceDraft, balance_positions
from lvlmbench.choice import extract_choice, render_choice_prompt, score_choice
from lvlmbench.models import (
    ChatModel,
    ErrorKind,
    ModelClient,
    ProviderError,
    RegistryError,
    load_chat_model,
)
from lvlmbench.prompts import render_prompt
from lvlmbench.types import BenchmarkItem, GenerationConfig, ImagePart, Message, Status

WORDS = ["red", "blue", "green", "yellow", "cube", "ball", "cone", "ring", "left", "right"]


def mc_items(n: int = 400) -> list[BenchmarkItem]:
    drafts = [
        ChoiceDraft(f"{WORDS[i % 10]} {i}", [f"{w} {i}" for w in ("on", "off", "up")])
        for i in range(n)
    ]
    return [
        BenchmarkItem(
            id=f"mc{i}",
            benchmark="b",
            question=f"Which thing is number {i}?",
            kind="mc",
            options=options,
            answer=answer,
        )
        for i, (options, answer) in enumerate(balance_positions(drafts, seed=7))
    ]


def tf_items(n: int = 400) -> list[BenchmarkItem]:
    return [
        BenchmarkItem(
            id=f"tf{i}",
            benchmark="b",
            question=f"The ball number {i} is red.",
            kind="tf",
            answer="true" if i % 2 else "false",
        )
        for i in range(n)
    ]


async def accuracy(client: ModelClient, items: list[BenchmarkItem]) -> float:
    correct = 0
    for item in items:
        output = await client.generate([Message.user(render_choice_prompt(item))])
        assert output.ok and not output.cached
        extraction = extract_choice(output.text, item.kind, item.options)  # type: ignore[arg-type]
        correct += score_choice(item, extraction) is True
    return correct / len(items)


async def test_random_is_at_chance_and_reproducible():
    model = load_chat_model("baseline/random")
    assert isinstance(model, ChatModel)
    client = ModelClient(model, None)
    # Binomial(400, 1/4): sd is 8.7 answers, so 4 sd either side is 65..135 correct.
    assert 65 / 400 <= await accuracy(client, mc_items()) <= 135 / 400
    # Binomial(400, 1/2): sd 10, so 160..240.
    assert 160 / 400 <= await accuracy(client, tf_items()) <= 240 / 400
    again = ModelClient(load_chat_model("baseline/random"), None)
    assert await accuracy(again, mc_items()) == await accuracy(client, mc_items())


async def test_random_seed_and_epoch_change_the_draws():
    items = mc_items(60)

    async def answers(spec: str, epoch: int = 0) -> list[str]:
        model = load_chat_model(spec)
        return [
            (
                await model.generate(
                    [Message.user(render_choice_prompt(i))], GenerationConfig(epoch=epoch)
                )
            ).text
            for i in items
        ]

    base = await answers("baseline/random")
    assert set(base) <= {"A", "B", "C", "D"} and len(set(base)) == 4
    assert base != await answers("baseline/random?seed=3")
    assert base != await answers("baseline/random", epoch=1)
    assert base == await answers("baseline/random")


async def test_oracle_after_prepare_is_always_right():
    model = load_chat_model("baseline/oracle")
    items = mc_items(100) + tf_items(100)
    model.prepare(items)  # type: ignore[attr-defined]
    assert await accuracy(ModelClient(model, None), items) == 1.0


async def test_oracle_never_guesses():
    model = load_chat_model("baseline/oracle")
    item = mc_items(1)[0]
    output = await model.generate([Message.user(render_choice_prompt(item))], GenerationConfig())
    assert output.text == "I don't know"
    assert extract_choice(output.text, "mc", item.options).status is Status.UNPARSEABLE


def png(colour: str) -> ImagePart:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buffer, format="PNG")
    return ImagePart.from_bytes(buffer.getvalue())


async def test_oracle_tells_same_prompt_items_apart_by_image_and_reads_past_descriptions():
    red, blue = png("red"), png("blue")
    same = dict(benchmark="b", question="Is the square red?", kind="tf")
    items = [
        BenchmarkItem(id="1", images=[red.sha256()], answer="true", **same),
        BenchmarkItem(id="2", images=[blue.sha256()], answer="false", **same),
    ]
    model = load_chat_model("baseline/oracle")
    model.prepare(items)  # type: ignore[attr-defined]
    prompt = render_choice_prompt(items[0])
    config = GenerationConfig()
    assert (await model.generate([Message.user(red, prompt)], config)).text == "true"
    assert (await model.generate([Message.user(blue, prompt)], config)).text == "false"
    # Without the image the two items disagree: the oracle does not pick one.
    assert (await model.generate([Message.user(prompt)], config)).text == "I don't know"
    one = mc_items(1)[0]
    model.prepare([one])  # type: ignore[attr-defined]
    described = render_prompt(
        "eval/with_description.md",
        description="Shapes.\n\nA cube.",
        prompt=render_choice_prompt(one),
    )
    assert (await model.generate([Message.user(described)], config)).text == f"Answer: {one.answer}"


async def test_oracle_answers_open_items_with_their_reference_only():
    model = load_chat_model("baseline/oracle")
    model.prepare(
        [
            BenchmarkItem(
                id="o",
                benchmark="b",
                question="Describe it.",  # type: ignore[attr-defined]
                reference="A red cube.",
            )
        ]
    )
    config = GenerationConfig()
    assert (await model.generate([Message.user("Describe it.")], config)).text == "A red cube."
    assert (await model.generate([Message.user("Describe that.")], config)).text == "I don't know"


async def test_prior_reads_the_question_only_and_is_deterministic():
    item = BenchmarkItem(
        id="p",
        benchmark="b",
        question="What is the red cube next to?",
        kind="mc",
        options={"A": "a ball", "B": "the red cube's twin", "C": "nothing", "D": "a green cone"},
        answer="D",
    )
    model = load_chat_model("baseline/prior")
    prompt = render_choice_prompt(item)
    first = await model.generate([Message.user(prompt)], GenerationConfig())
    assert first.text == "B"  # shares "red" and "cube" with the question
    # It has no channel for keys, and it follows the option's text wherever the key puts it.
    assert not hasattr(model, "prepare")
    texts = list(item.options.values())
    for shift in range(1, 4):
        rotated = dict(zip("ABCD", texts[shift:] + texts[:shift], strict=True))
        moved = item.model_copy(update={"options": rotated})
        reply = await model.generate(
            [Message.user(render_choice_prompt(moved))], GenerationConfig()
        )
        assert rotated[reply.text] == "the red cube's twin"
    tie = item.model_copy(
        update={
            "question": "Which one?",
            "options": {"A": "cone", "B": "ball", "C": "a big cube", "D": "ring"},
        }
    )
    assert (
        await model.generate([Message.user(render_choice_prompt(tie))], GenerationConfig())
    ).text == "C"  # no overlap: longest text
    tf = BenchmarkItem(id="t", benchmark="b", question="The cube is red.", kind="tf")
    assert (
        await model.generate([Message.user(render_choice_prompt(tf))], GenerationConfig())
    ).text == "true"


async def test_open_prompts_get_a_deterministic_sentence_of_prompt_words():
    messages = [Message.user("Describe the striped umbrella near the harbour.")]
    prior = load_chat_model("baseline/prior")
    reply = (await prior.generate(messages, GenerationConfig())).text
    assert reply == "The image shows striped, umbrella and near."
    random_model = load_chat_model("baseline/random")
    first = (await random_model.generate(messages, GenerationConfig())).text
    assert first == (await random_model.generate(messages, GenerationConfig())).text
    shown = set(first.removeprefix("The image shows ").rstrip(".").replace(",", "").split())
    assert shown - {"and"} <= {"striped", "umbrella", "near", "harbour"}


async def test_output_shape_and_identity():
    model = load_chat_model("baseline/random?seed=5")
    assert model.spec == "baseline/random?seed=5" and model.endpoint == "local:baseline"
    assert model.cache_identity() == {"provider": "baseline", "model": "random", "seed": 5}
    assert load_chat_model("baseline/oracle").spec == "baseline/oracle"
    output = await model.generate(
        [Message.user(render_choice_prompt(mc_items(1)[0]))], GenerationConfig()
    )
    assert output.status is Status.OK and output.latency_s < 0.1
    assert output.usage.input_tokens > 10 and 1 <= output.usage.output_tokens <= 3
    await model.aclose()


def test_unknown_baseline_and_bad_seed():
    with pytest.raises(ProviderError, match="random, prior, oracle") as caught:
        load_chat_model("baseline/genius")
    assert caught.value.kind is ErrorKind.FATAL
    # A malformed option is refused by the registry, before the baseline is built.
    with pytest.raises(RegistryError, match=r"option seed='x': expected a whole number"):
        load_chat_model("baseline/random", seed="x")
