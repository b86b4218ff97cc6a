"""The transformers back-end against a tiny random LLaVA built here, with no download at all.

The model is built once per session from config classes (two layers, hidden size 32, a 30 px
vision tower), saved with ``save_pretrained`` and loaded back through the real registry and
provider, exactly as ``hf/<directory>`` would load a real checkpoint.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from PIL import Image  # noqa: E402

from lvlmbench.models import ErrorKind, ModelClient, ProviderError, load_chat_model  # noqa: E402
from lvlmbench.models._hf_batch import Batcher  # noqa: E402
from lvlmbench.models.hf import HFChatModel  # noqa: E402
from lvlmbench.store import Store  # noqa: E402
from lvlmbench.types import GenerationConfig, ImagePart, Message  # noqa: E402

pytestmark = pytest.mark.integration

_SENTENCES = [
    "what colour is the circle in the picture",
    "the square is red and the circle is blue",
    "how many shapes are there on the left",
    "answer yes or no one two three four",
    "user assistant system describe this image",
]
# Images go exactly where the message puts them: each image part becomes one <image> placeholder,
# which the LLaVA processor expands to the vision tower's patch count.
_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }} : "
    "{% if message['content'] is string %}{{ message['content'] }} {% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image> {% else %}{{ part['text'] }} {% endif %}"
    "{% endfor %}{% endif %}</s> {% endfor %}"
    "{% if add_generation_prompt %}assistant : {% endif %}"
)


def _tokenizer() -> transformers.PreTrainedTokenizerFast:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.decoder = decoders.WordPiece()  # joins words with spaces when decoding
    trainer = trainers.WordLevelTrainer(special_tokens=["<pad>", "<s>", "</s>", "<unk>", "<image>"])
    raw.train_from_iterator(_SENTENCES, trainer)
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        extra_special_tokens={"image_token": "<image>"},
    )


def _build_tiny_llava(path: Path) -> None:
    tokenizer = _tokenizer()
    image_processor_cls = getattr(transformers, "CLIPImageProcessorPil", None)
    image_processor = (image_processor_cls or transformers.CLIPImageProcessor)(
        size={"shortest_edge": 30}, crop_size={"height": 30, "width": 30}
    )
    vision = transformers.CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        image_size=30,
        patch_size=6,
        projection_dim=32,
    )
    text = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    config = transformers.LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    model = transformers.LlavaForConditionalGeneration(config).eval()
    processor = transformers.LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=6,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,  # the CLS token, which "default" then drops
        chat_template=_CHAT_TEMPLATE,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)


@pytest.fixture(scope="session")
def tiny_llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny random LLaVA checkpoint (built once per test session)."""
    path = tmp_path_factory.mktemp("tiny-llava")
    _build_tiny_llava(path)
    return path


@pytest.fixture(scope="session")
def tiny_text_llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny random text-only Llama: no image processor, just a tokenizer."""
    path = tmp_path_factory.mktemp("tiny-text-llama")
    tokenizer = _tokenizer()
    tokenizer.chat_template = _CHAT_TEMPLATE
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    transformers.LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _image(colour: tuple[int, int, int], size: tuple[int, int] = (40, 50)) -> ImagePart:
    picture = Image.new("RGB", size, colour)
    picture.paste((255, 255, 255), (5, 5, 20, 20))
    return ImagePart.from_pil(picture)


def _question() -> list[Message]:
    return [Message.user(_image((200, 10, 10)), "what colour is the circle")]


def _varied_prompts() -> list[list[Message]]:
    """Prompts of different lengths and image counts, so a batch needs padding."""
    return [
        _question(),
        [Message.user("how many shapes are there on the left", _image((0, 90, 200)))],
        [
            Message.system("answer yes or no"),
            Message.user(_image((10, 200, 10)), "is the square red", _image((90, 90, 90))),
        ],
        [Message.user("describe this image", _image((250, 250, 0), (64, 32)))],
        [Message.user("one two three")],
    ]


def _load(directory: Path, **options: object) -> HFChatModel:
    model = load_chat_model(f"hf/{directory}", device="cpu", **options)
    assert isinstance(model, HFChatModel)
    return model


GREEDY = GenerationConfig(max_tokens=12)


async def test_answers_a_question_about_an_image(tiny_llava_dir: Path) -> None:
    model = _load(tiny_llava_dir)
    try:
        out = await model.generate(_question(), GREEDY)
    finally:
        await model.aclose()
    assert out.ok and isinstance(out.text, str)
    assert 0 < out.usage.output_tokens <= GREEDY.max_tokens
    # 25 image placeholder tokens (5x5 patches) plus the words of the prompt.
    assert out.usage.input_tokens > 25
    assert out.finish_reason in ("stop", "length")
    assert out.latency_s > 0 and out.raw == {"batch_size": 1, "generate_s": out.raw["generate_s"]}


async def test_greedy_is_deterministic_and_max_tokens_is_respected(tiny_llava_dir: Path) -> None:
    model = _load(tiny_llava_dir)
    try:
        first = await model.generate(_question(), GREEDY)
        second = await model.generate(_question(), GREEDY)
        short = await model.generate(_question(), GenerationConfig(max_tokens=3))
    finally:
        await model.aclose()
    assert first.text == second.text and first.usage == second.usage
    assert short.usage.output_tokens <= 3
    if short.usage.output_tokens == 3:
        assert short.finish_reason == "length"


async def test_batched_answers_equal_one_at_a_time(tiny_llava_dir: Path) -> None:
    prompts = _varied_prompts()
    single = _load(tiny_llava_dir, batch_size=1)
    batched = _load(tiny_llava_dir, batch_size=4)
    try:
        alone = [await single.generate(p, GREEDY) for p in prompts]
        together = await asyncio.gather(*(batched.generate(p, GREEDY) for p in prompts))
    finally:
        await single.aclose()
        await batched.aclose()
    assert [o.raw["batch_size"] for o in together if o.raw] == [4, 4, 4, 4, 1]
    assert [o.text for o in together] == [o.text for o in alone]
    assert [o.usage for o in together] == [o.usage for o in alone]
    assert [o.finish_reason for o in together] == [o.finish_reason for o in alone]


async def test_sampling_reproduces_per_seed_and_epoch(tiny_llava_dir: Path) -> None:
    def sampled(epoch: int) -> GenerationConfig:
        return GenerationConfig(temperature=1.0, top_p=0.95, seed=7, max_tokens=12, epoch=epoch)

    model = _load(tiny_llava_dir, batch_size=8)
    try:
        again = [await model.generate(_question(), sampled(0)) for _ in range(2)]
        # Sampled rows share a batch with a greedy row and each other, yet each keeps its own
        # generator: the batch composition must not change what a row draws.
        mixed = await asyncio.gather(
            model.generate(_question(), sampled(0)),
            model.generate(_question(), GREEDY),
            *(model.generate(_question(), sampled(epoch)) for epoch in range(1, 5)),
        )
        greedy = await model.generate(_question(), GREEDY)
    finally:
        await model.aclose()
    assert again[0].text == again[1].text
    assert mixed[0].raw is not None and mixed[0].raw["batch_size"] == 6
    assert mixed[0].text == again[0].text
    assert mixed[1].text == greedy.text
    assert len({o.text for o in [mixed[0], *mixed[2:]]}) > 1, "epochs should sample differently"


async def test_stop_string_cuts_the_text_and_ends_generation(tiny_llava_dir: Path) -> None:
    model = _load(tiny_llava_dir)
    try:
        # A random model may repeat one word; use the first prompt whose answer has two.
        for prompt in _varied_prompts():
            full = await model.generate(prompt, GREEDY)
            words = full.text.split()
            if len(set(words)) > 1:
                break
        else:
            pytest.fail("no prompt made the tiny model say two different words")
        stop = next(w for w in words[1:] if w != words[0])
        cut = await model.generate(prompt, GREEDY.model_copy(update={"stop": (stop,)}))
    finally:
        await model.aclose()
    assert cut.text == full.text[: full.text.index(stop)]
    assert cut.finish_reason == "stop"
    # generate itself stopped at the stop string instead of running to max_tokens.
    assert cut.usage.output_tokens < full.usage.output_tokens


async def test_an_unreadable_image_fails_only_its_own_request(tiny_llava_dir: Path) -> None:
    model = _load(tiny_llava_dir, batch_size=4)
    broken = [Message.user(ImagePart.from_bytes(b"not an image"), "what colour")]
    try:
        results = await asyncio.gather(
            model.generate(broken, GREEDY),
            model.generate(_question(), GREEDY),
            return_exceptions=True,
        )
    finally:
        await model.aclose()
    error, good = results
    assert isinstance(error, ProviderError) and error.status_code == 400
    assert "cannot read image" in str(error)
    assert not isinstance(good, BaseException) and good.ok


async def test_text_only_checkpoints_answer_text_and_refuse_images(
    tiny_text_llama_dir: Path,
) -> None:
    model = _load(tiny_text_llama_dir, batch_size=4)
    try:
        text, image = await asyncio.gather(
            model.generate([Message.user("how many shapes are there")], GREEDY),
            model.generate(_question(), GREEDY),
            return_exceptions=True,
        )
    finally:
        await model.aclose()
    assert not isinstance(text, BaseException) and text.ok and text.usage.output_tokens > 0
    assert isinstance(image, ProviderError) and image.status_code == 400
    assert "cannot take images" in str(image)


async def test_missing_directory_is_a_fatal_error_that_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    model = _load(missing)
    with pytest.raises(ProviderError) as caught:
        await model.generate(_question(), GREEDY)
    assert caught.value.kind is ErrorKind.FATAL and caught.value.status_code is None
    assert str(missing) in str(caught.value) and "no such directory" in str(caught.value)
    # A second call repeats the error instead of trying to load again.
    with pytest.raises(ProviderError) as again:
        await model.generate(_question(), GREEDY)
    assert again.value is caught.value


async def test_uncached_repo_id_hints_at_downloading() -> None:
    model = load_chat_model("hf/lvlmbench-tests/no-such-repo", device="cpu")
    with pytest.raises(ProviderError, match="local_files_only=false"):
        await model.generate(_question(), GREEDY)


def test_options_are_checked_and_identity_ignores_speed_settings(tiny_llava_dir: Path) -> None:
    one = _load(tiny_llava_dir, batch_size=1)
    many = _load(tiny_llava_dir, batch_size=16)
    assert one.cache_identity() == many.cache_identity()
    assert one.endpoint == f"local:hf:{tiny_llava_dir.resolve()}"
    assert one.cache_identity()["dtype"] == "float32"
    assert _load(tiny_llava_dir, dtype="bfloat16").cache_identity() != one.cache_identity()
    with pytest.raises(ValueError, match="batch_size"):
        _load(tiny_llava_dir, batch_size=0)
    with pytest.raises(ValueError, match="trust_remote_code"):
        _load(tiny_llava_dir, trust_remote_code="maybe")


async def test_client_caches_local_answers(tiny_llava_dir: Path, tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "cache.db"))
    client = ModelClient(_load(tiny_llava_dir), store)
    try:
        first = await client.generate(_question(), GREEDY)
        second = await client.generate(_question(), GREEDY)
    finally:
        await client.aclose()
        store.close()
    assert first.ok and not first.cached
    assert second.cached and second.text == first.text and second.attempts == 0


async def test_batcher_groups_by_key_and_skips_cancelled_callers() -> None:
    batches: list[list[str]] = []

    async def run(items: list[str]) -> list[str | Exception]:
        batches.append(items)
        return [ValueError(item) if item == "bad" else item.upper() for item in items]

    batcher: Batcher[str, str] = Batcher(run, max_size=2, key=len)
    words = ["ab", "cd", "ef", "xyz", "bad"]
    tasks = [asyncio.create_task(batcher.submit(word)) for word in words]
    await asyncio.sleep(0)  # every task has queued its word; the worker has not run yet
    tasks[2].cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert batches == [["ab", "cd"], ["xyz", "bad"]]
    assert results[:2] == ["AB", "CD"] and results[3] == "XYZ"
    assert isinstance(results[2], asyncio.CancelledError)
    assert isinstance(results[4], ValueError)


async def test_batcher_close_fails_waiting_callers() -> None:
    release = asyncio.Event()

    async def run(items: list[int]) -> list[int | Exception]:
        await release.wait()
        return list(items)

    batcher: Batcher[int, int] = Batcher(run, max_size=1, key=lambda _: 0)
    tasks = [asyncio.create_task(batcher.submit(n)) for n in range(3)]
    await asyncio.sleep(0.01)
    await batcher.aclose(RuntimeError("closed"))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, RuntimeError) and str(r) == "closed" for r in results)
