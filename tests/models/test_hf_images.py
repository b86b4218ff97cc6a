"""A transformers model's group preparation: images decoded on a pool of threads, each picture
handed to its own row, a bad one failing its row alone; and the options that steer it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from models.test_hf import _image, _load, _varied_prompts, tiny_llava_dir  # noqa: E402, F401

from lvlmbench.models import ProviderError, _hf_images  # noqa: E402
from lvlmbench.models._hf_images import ImageDecoder  # noqa: E402
from lvlmbench.models._hf_load import (  # noqa: E402
    Request,
    image_stream_for,
    load,
)
from lvlmbench.models._hf_queue import Job  # noqa: E402
from lvlmbench.types import GenerationConfig, ImagePart, Message  # noqa: E402


def _decoding_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of the thread each picture is decoded on, in order, from now on."""
    names: list[str] = []
    decode = _hf_images.decode_image

    def recording(part: ImagePart) -> object:
        names.append(threading.current_thread().name)
        return decode(part)

    monkeypatch.setattr(_hf_images, "decode_image", recording)
    return names


def test_the_pool_decodes_each_picture_once_on_its_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every distinct part is decoded once, on the pool's threads, and the lookup gives each
    part its own picture; a part that cannot be read raises its error when looked up."""
    seen = _decoding_threads(monkeypatch)
    parts = [_image((10 * i, 0, 0), (20 + i, 30)) for i in range(6)]
    broken = ImagePart.from_bytes(b"not an image")
    decoder = ImageDecoder(threads=3)
    try:
        lookup = decoder.decode_all([*parts, parts[0], broken])
    finally:
        decoder.close()
    assert len(seen) == 7 and all(name.startswith("hf-decode") for name in seen)
    assert [lookup(part).size for part in parts] == [(20 + i, 30) for i in range(6)]
    assert [lookup(part).getpixel((0, 0)) for part in parts] == [(10 * i, 0, 0) for i in range(6)]
    with pytest.raises(ProviderError, match="cannot read image"):
        lookup(broken)


def test_one_thread_decodes_on_the_callers_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    names = _decoding_threads(monkeypatch)
    ImageDecoder(threads=1).decode_all([_image((1, 2, 3)), _image((4, 5, 6))])
    assert names == [threading.current_thread().name] * 2


def _jobs(prompts: list[list[Message]], answers: list[object]) -> list[Job]:
    config = GenerationConfig(max_tokens=4)
    return [Job(Request(p, config, 0.0), answers.append) for p in prompts]


def test_a_group_prepared_on_many_threads_equals_one_prepared_on_one(
    tiny_llava_dir: Path,  # noqa: F811
) -> None:
    """The processor gets the same pixels in the same rows whichever thread decoded them, and
    an unreadable picture fails its own row only (the others are prepared)."""
    broken = [Message.user(ImagePart.from_bytes(b"not an image"), "what colour")]
    prompts = _varied_prompts() * 3
    groups = []
    failures: list[object] = []
    for threads in (1, 4):
        model = _load(tiny_llava_dir, decode_threads=threads)
        loaded = load(model, "cpu")
        groups.append(model.prepare_group(loaded, _jobs([*prompts, broken], failures)))
    one, many = groups
    assert len(one.jobs) == len(many.jobs) == len(prompts)
    assert torch.equal(one.inputs["pixel_values"], many.inputs["pixel_values"])
    assert torch.equal(one.inputs["input_ids"], many.inputs["input_ids"])
    assert len(failures) == 2 and all(
        isinstance(f, ProviderError) and f.status_code == 400 for f in failures
    )
    assert many.decode_s > 0 and many.process_s > 0


def test_image_options_are_checked_and_keep_the_identity(tiny_llava_dir: Path) -> None:  # noqa: F811
    plain = _load(tiny_llava_dir)
    tuned = _load(tiny_llava_dir, decode_threads=2, image_device="cpu")
    assert plain.cache_identity() == tuned.cache_identity()
    with pytest.raises(ValueError, match="image_device"):
        _load(tiny_llava_dir, image_device="gpu")
    with pytest.raises(ValueError, match="decode_threads"):
        _load(tiny_llava_dir, decode_threads=0)


def test_images_stay_on_the_cpu_without_a_gpu_or_a_torchvision_processor(
    tiny_llava_dir: Path,  # noqa: F811
) -> None:
    """The image processor moves to the GPU only for ``auto``, a CUDA device and a torchvision
    image processor (tests/gpu checks the GPU side)."""
    loaded = load(_load(tiny_llava_dir), "cpu")
    assert image_stream_for(loaded, "cpu", "auto") is None
    assert image_stream_for(loaded, "cuda", "cpu") is None
    if getattr(loaded.processor.image_processor, "backend", "") != "torchvision":
        assert image_stream_for(loaded, "cuda", "auto") is None
