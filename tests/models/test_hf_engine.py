"""The transformers back-end's replicas: continuous batching, overlap, out-of-memory halving,
replicas over devices and the concurrency a local model asks for, on the tiny random LLaVA of
``test_hf.py`` (CPU, float32: batched and single answers are equal)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from models.test_hf import GREEDY, _build_tiny_llava, _question, _varied_prompts  # noqa: E402

from lvlmbench.models import ModelClient, ProviderError, load_chat_model  # noqa: E402
from lvlmbench.models._hf_engine import BatchLog  # noqa: E402
from lvlmbench.models._hf_load import Loaded, Request  # noqa: E402
from lvlmbench.models._hf_queue import Job  # noqa: E402
from lvlmbench.models._hf_rows import Decoding, Row  # noqa: E402
from lvlmbench.models.hf import HFChatModel  # noqa: E402
from lvlmbench.types import GenerationConfig, Message, ModelOutput  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tiny_llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-llava-engine")
    _build_tiny_llava(path)
    return path


def _load(directory: Path, **options: object) -> HFChatModel:
    model = load_chat_model(f"hf/{directory}", device="cpu", **options)
    assert isinstance(model, HFChatModel)
    return model


class _MemoryCapped:
    """The loaded model, raising ``torch.OutOfMemoryError`` for a forward or ``generate`` of
    more than ``rows`` rows, as a full GPU would."""

    def __init__(self, model: Any, rows: int) -> None:
        self._model, self._rows = model, rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def _check(self, inputs: dict[str, Any]) -> None:
        rows = int(inputs["input_ids"].shape[0])
        if rows > self._rows:
            raise torch.OutOfMemoryError(f"{rows} rows > {self._rows}")

    def __call__(self, **inputs: Any) -> Any:
        self._check(inputs)
        return self._model(**inputs)

    def generate(self, **inputs: Any) -> Any:
        self._check(inputs)
        return self._model.generate(**inputs)


class _CappedHF(HFChatModel):
    """The hf back-end on a device that holds ``rows`` rows at once."""

    def __init__(self, model: HFChatModel, rows: int) -> None:
        super().__init__(model.name, model.settings)
        self.rows = rows

    def load_replica(self, device: str) -> Loaded:
        loaded = super().load_replica(device)
        loaded.model = _MemoryCapped(loaded.model, self.rows)
        return loaded


async def _answers(
    model: HFChatModel, prompts: list[list[Message]], configs: list[GenerationConfig] | None = None
) -> list[ModelOutput]:
    configs = configs or [GREEDY] * len(prompts)
    try:
        return list(
            await asyncio.gather(
                *(model.generate(p, c) for p, c in zip(prompts, configs, strict=True))
            )
        )
    finally:
        await model.aclose()


async def _answers_logged(
    model: HFChatModel, prompts: list[list[Message]], configs: list[GenerationConfig]
) -> tuple[list[ModelOutput], BatchLog]:
    """``_answers``, and what the replicas ran."""
    try:
        outputs = await asyncio.gather(
            *(model.generate(p, c) for p, c in zip(prompts, configs, strict=True))
        )
        return list(outputs), model.batch_log()
    finally:
        await model.aclose()


async def _one_at_a_time(
    directory: Path, prompts: list[list[Message]], configs: list[GenerationConfig]
) -> list[ModelOutput]:
    model = _load(directory, batch_size=1)
    try:
        return [await model.generate(p, c) for p, c in zip(prompts, configs, strict=True)]
    finally:
        await model.aclose()


def _mixed() -> tuple[list[list[Message]], list[GenerationConfig]]:
    """Twelve prompts whose answers end at different points (max_tokens 2 to 12, a stop)."""
    prompts = _varied_prompts() * 2 + _varied_prompts()[:2]
    configs = [GenerationConfig(max_tokens=2 + (i * 5) % 11) for i in range(len(prompts))]
    configs[3] = configs[3].model_copy(update={"temperature": 1.0, "seed": 5})
    return prompts, configs


def _same(got: list[ModelOutput], want: list[ModelOutput]) -> None:
    assert [o.text for o in got] == [o.text for o in want]
    assert [o.usage for o in got] == [o.usage for o in want]
    assert [o.finish_reason for o in got] == [o.finish_reason for o in want]


async def test_rows_leave_as_they_end_and_answers_equal_one_at_a_time(
    tiny_llava_dir: Path,
) -> None:
    """Mixed max_tokens share a batch of 4 (the static path could not mix them); 12 rows
    pass through it, each refill merged into rows mid-answer."""
    prompts, configs = _mixed()
    alone = await _one_at_a_time(tiny_llava_dir, prompts, configs)
    model = _load(tiny_llava_dir, batch_size=4, continuous="true")
    together = await _answers(model, prompts, configs)
    _same(together, alone)
    assert {o.raw["batch_size"] for o in together if o.raw} == {4}
    static = await _answers(
        _load(tiny_llava_dir, batch_size=4, continuous="false"), prompts, configs
    )
    _same(static, alone)


@pytest.mark.parametrize("overlap", ["true", "false"])
async def test_a_running_batch_is_refilled_and_answers_as_one_at_a_time(
    tiny_llava_dir: Path, overlap: str
) -> None:
    """36 calls of mixed lengths at batch 32, groups of 16: once 16 rows ended, the rows
    still waiting are prefilled into the running batch; every answer as one at a time."""
    prompts, configs = _mixed()
    prompts, configs = prompts * 3, configs * 3
    alone = await _one_at_a_time(tiny_llava_dir, prompts, configs)
    model = _load(tiny_llava_dir, batch_size=32, continuous="true", overlap=overlap)
    together, log = await _answers_logged(model, prompts, configs)
    _same(together, alone)
    assert log.refills >= 1 and max(log.groups) == 16


async def test_groups_merged_into_rows_mid_answer_answer_as_one_at_a_time(
    tiny_llava_dir: Path,
) -> None:
    """Continuous batching's cache surgery, driven step by step: a group of 3 is prefilled
    every 2 decode steps into rows already answering (longer, so each side is left-padded to
    the other), finished rows are dropped and their padding trimmed, and every answer equals
    the one-at-a-time answer (a sampled row included)."""
    prompts, configs = _mixed()
    alone = await _one_at_a_time(tiny_llava_dir, prompts, configs)
    model = _load(tiny_llava_dir, batch_size=12, continuous="true")
    loaded = model.load_replica("cpu")
    jobs = [Job(Request(p, c, 0.0), lambda _: None) for p, c in zip(prompts, configs, strict=True)]
    groups = [model.prepare_group(loaded, jobs[i : i + 3]) for i in range(0, len(jobs), 3)]
    decoding = Decoding(loaded.model, model.vocabulary(loaded))
    ended: list[Row] = []
    merged_into_live = dropped = 0
    with torch.inference_mode():
        for turn in range(200):
            if turn % 2 == 0 and groups:
                group = groups.pop(0)
                merged_into_live += decoding.live > 0
                pairs = zip(group.jobs, group.prompt_tokens, strict=True)
                rows = [model.make_row(job, tokens) for job, tokens in pairs]
                decoding.prefill(model.to_device(loaded, group.inputs), rows)
            ended += decoding.record()
            if decoding.live == 0 and not groups:
                break
            if len(decoding) > decoding.live:
                dropped += 1
                decoding.drop_finished()
            decoding.step()
    assert merged_into_live >= 3 and dropped >= 1
    by_job = {id(row.ticket): row.finished for row in ended}
    got = [by_job[id(job)] for job in jobs]
    assert [f.text for f in got if f] == [o.text for o in alone]
    assert [f.output_tokens for f in got if f] == [o.usage.output_tokens for o in alone]
    assert [f.finish_reason for f in got if f] == [o.finish_reason for o in alone]


@pytest.mark.parametrize("continuous", ["true", "false"])
async def test_without_overlap_the_answers_are_the_same(
    tiny_llava_dir: Path, continuous: str
) -> None:
    prompts, configs = _mixed()
    overlapped = await _answers(
        _load(tiny_llava_dir, batch_size=3, continuous=continuous), prompts, configs
    )
    inline = await _answers(
        _load(tiny_llava_dir, batch_size=3, continuous=continuous, overlap="false"),
        prompts,
        configs,
    )
    _same(inline, overlapped)


@pytest.mark.parametrize("continuous", ["true", "false"])
async def test_out_of_memory_halves_the_batch_and_fails_no_row(
    tiny_llava_dir: Path, continuous: str
) -> None:
    """A device that holds 3 rows: batch 8 halves to 4, then 2; every row is answered, as
    one at a time."""
    prompts = _varied_prompts() * 2
    alone = await _one_at_a_time(tiny_llava_dir, prompts, [GREEDY] * len(prompts))
    model = _CappedHF(_load(tiny_llava_dir, batch_size=8, continuous=continuous), rows=3)
    try:
        outputs = await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts))
        rows, halvings = model.batch_rows(), model.out_of_memory_halvings()
    finally:
        await model.aclose()
    _same(list(outputs), alone)
    assert rows == [2] and halvings == 2


async def test_a_row_that_fits_nowhere_fails_alone(tiny_llava_dir: Path) -> None:
    model = _CappedHF(_load(tiny_llava_dir, batch_size=4), rows=0)
    try:
        with pytest.raises(ProviderError) as caught:
            await model.generate(_question(), GREEDY)
    finally:
        await model.aclose()
    # 413: this item fails (the run goes on), with what to do about it.
    assert caught.value.status_code == 413 and "does not fit" in str(caught.value)
    assert caught.value.hint is not None and "max_tokens" in caught.value.hint


async def test_replicas_share_the_queue_and_answer_alike(tiny_llava_dir: Path) -> None:
    prompts = _varied_prompts() * 4
    single = await _answers(_load(tiny_llava_dir, batch_size=2), prompts)
    model = _load(tiny_llava_dir, batch_size=2, replicas=2)
    assert model.replica_count == 2 and model.devices == ["cpu", "cpu"]
    try:
        outputs = await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts))
        answered = [r.loaded is not None for r in model._replicas]
    finally:
        await model.aclose()
    _same(list(outputs), single)
    assert answered == [True, True]


def test_auto_batch_size_and_the_concurrency_a_local_model_asks_for(
    tiny_llava_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    auto = _load(tiny_llava_dir)
    assert auto.settings.batch_size is None and auto.batch_size == 8  # auto on a CPU
    assert ModelClient(auto, None).concurrency == 24  # a batch decoding, two waiting
    fixed = _load(tiny_llava_dir, batch_size=32, replicas=2)
    assert ModelClient(fixed, None).concurrency == 2 * 3 * 32
    with caplog.at_level(logging.WARNING, logger="lvlmbench.models._client"):
        ModelClient(fixed, None, concurrency=16)
        ModelClient(fixed, None, concurrency=16)
    warned = [r.getMessage() for r in caplog.records if "batch_size" in r.getMessage()]
    assert len(warned) == 1 and "16" in warned[0] and "32" in warned[0]
    assert ModelClient(fixed, None, concurrency=64).concurrency == 128
    with pytest.raises(ValueError, match="batch_size"):
        _load(tiny_llava_dir, batch_size="big")
    with pytest.raises(ValueError, match="max_batch_size"):
        _load(tiny_llava_dir, max_batch_size=0)
    assert _load(tiny_llava_dir, batch_size="auto").settings.batch_size is None
