"""The transformers back-end on a real GPU (skipped where there is none, as in CI).

The CPU tests (``tests/models/test_hf_groups.py``, ``test_hf_engine.py``) run the same code with
fake models and a fake device memory, and check that answers do not depend on the batching
(float32); this checks what only a card shows: ``batch_size=auto`` sizes the batch from the
card's real free memory after a probe of 8 rows. ``bench/bench_local.py`` measures the speed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from models.test_hf import _build_tiny_llava, _varied_prompts  # noqa: E402

from lvlmbench.models import load_chat_model  # noqa: E402
from lvlmbench.models.hf import HFChatModel  # noqa: E402
from lvlmbench.types import GenerationConfig, Message, ModelOutput  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.gpu]

GREEDY = GenerationConfig(max_tokens=12)


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-llava-hf-gpu")
    _build_tiny_llava(path)
    return path


def _model(directory: Path, options: str) -> HFChatModel:
    model = load_chat_model(f"hf/{directory}?device=cuda&dtype=float32&{options}")
    assert isinstance(model, HFChatModel)
    return model


async def _answers(model: HFChatModel, prompts: list[list[Message]]) -> list[ModelOutput]:
    return list(await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts)))


async def test_auto_sizes_the_batch_from_the_card(llava_dir: Path) -> None:
    """The probe (8 rows) measures the card's real memory and finds room for all that
    ``max_batch_size`` allows; the groups prepared at the probe's size are grouped again, so
    the other 32 calls go in one batch, and no out-of-memory error was needed."""
    prompts = _varied_prompts() * 8
    auto = _model(llava_dir, "max_batch_size=64")
    assert auto.auto_batch and auto.batch_size == 64
    try:
        outputs = await _answers(auto, prompts)
        rows, halvings, log = auto.batch_rows(), auto.out_of_memory_halvings(), auto.batch_log()
    finally:
        await auto.aclose()
    assert all(o.ok for o in outputs)
    assert rows == [64] and halvings == 0
    assert log.groups == [8, len(prompts) - 8]


def test_a_cpu_model_is_not_probed(llava_dir: Path) -> None:
    """``auto`` on the CPU of a machine that has a GPU: a fixed 8, no memory probe."""
    model = load_chat_model(f"hf/{llava_dir}?device=cpu")
    assert isinstance(model, HFChatModel)
    assert not model.auto_batch and model.batch_size == 8


async def test_images_are_processed_on_the_card_and_match_the_cpu(llava_dir: Path) -> None:
    """``image_device=auto`` (the default) runs a torchvision image processor on the model's
    GPU, on a stream of its own: its pixel values match the CPU's (see below), and
    the model answers every row from them; ``image_device=cpu`` keeps them on the CPU."""
    from lvlmbench.models._hf_generate import to_conversation
    from lvlmbench.models._hf_load import encode, image_stream_for, load

    on_card = _model(llava_dir, "batch_size=8")
    on_cpu = _model(llava_dir, "batch_size=8&image_device=cpu")
    loaded = load(on_card, "cuda")
    assert loaded.processor.image_processor.backend == "torchvision"
    conversations = [to_conversation(p, True) for p in _varied_prompts()]
    loaded.image_stream = image_stream_for(loaded, "cuda", "auto")
    assert loaded.image_stream is not None
    card = encode(loaded, conversations)
    assert image_stream_for(loaded, "cuda", "cpu") is None
    loaded.image_stream = None
    cpu = encode(loaded, conversations)
    assert card["pixel_values"].is_cuda and not cpu["pixel_values"].is_cuda
    # The CPU resizes uint8 pictures with a uint8 kernel (it rounds between its passes), the
    # card in floats: a few edge pixels differ by some levels, the rest by float rounding.
    difference = (card["pixel_values"].cpu() - cpu["pixel_values"]).abs()
    assert float(difference.mean()) < 2e-3 and float(difference.max()) < 0.25
    assert torch.equal(card["input_ids"], cpu["input_ids"])
    try:
        answers = await _answers(on_card, _varied_prompts())
        reference = await _answers(on_cpu, _varied_prompts())
        processed_s = on_card.batch_log().process_s
    finally:
        await on_card.aclose()
        await on_cpu.aclose()
    assert all(a.ok for a in answers + reference)
    assert processed_s > 0
