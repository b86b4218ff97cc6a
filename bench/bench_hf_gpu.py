"""Local transformers models at the GPU's speed: lvlmbench's runner against a bare loop.

A LLaVA-shaped model of realistic size is built with random weights (a CLIP-L/14-336 vision
tower, 576 image tokens; a Qwen2-1.5B-shaped decoder: 28 layers, hidden 1536, 2 KV heads, a
151,936-word vocabulary, untied head; about 2.09 B parameters; sdpa attention) and saved, so both
sides load the same checkpoint. The same multiple-choice items (one image each, the prompt that
lvlmbench's runner builds, about 617 prompt tokens) are answered greedily with exactly
``--max-tokens`` new tokens (no end-of-sequence token can be drawn):

- bare: the loop a user would write with transformers alone: ``apply_chat_template`` through
  the processor with padding, ``generate``, ``batch_decode``; images decoded to PIL before the
  clock starts; timed with ``cuda.synchronize``;
- lvlmbench: ``hf/DIR?batch_size=B`` through the runner and ``ModelClient`` into a fresh store
  (images read from the store, prompts built, answers stored), the weights loaded before the
  clock starts.

Printed: items/s of each and the ratio per batch size (target ≥ 0.95), then ``batch_size=auto``
with lvlmbench's own concurrency, then uneven answer lengths (a checkpoint whose end-of-sequence
ids are 1 in ``--eos-every`` of the vocabulary, so rows stop at different points): useful tokens/s
against the same-length run (target ≥ 0.9). ``--tiny`` builds a small model of the same shape
(the prompt keeps its 576 image tokens) so the script runs on a CPU in a minute.

Run: ``python bench/bench_hf_gpu.py [--tiny] [--batches 8,32,64,128] [--items N]``. Needs the
``hf`` extra. Figures also go to ``$LVLMBENCH_BENCH_JSON`` (bench/figures.py); without a CUDA
device and without ``--tiny`` it prints that it was skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import itertools
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import transformers
from figures import emit
from PIL import Image, ImageDraw

from lvlmbench.ids import content_id
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import item_messages, run_examinee
from lvlmbench.store import Store, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem, GenerationConfig, ImagePart, Message, TextPart

NAME = "hf_gpu"
BENCHMARK = "bench-hf-gpu"
VOCAB = 151_936
_SPECIAL = ["<pad>", "<s>", "</s>", "<unk>", "<image>"]
_TEMPLATE = (
    "{% for message in messages %}<s>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>\n{% else %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}</s>\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant\n{% endif %}"
)


@dataclass(frozen=True)
class Shape:
    """Sizes of the model built (the image side keeps 336 px / 14 px patches = 576 tokens)."""

    vision_hidden: int
    vision_layers: int
    vision_heads: int
    vision_mlp: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    mlp: int


REAL = Shape(1024, 24, 16, 4096, 1536, 28, 12, 2, 8960)
TINY = Shape(64, 2, 4, 128, 64, 2, 4, 2, 128)


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    # Prompt words all read as <unk>: what matters here is how many tokens a prompt has.
    words = _SPECIAL + [f"w{i}" for i in range(VOCAB)]
    vocab: dict[str, int] = {}
    for word in words:
        if len(vocab) == VOCAB:
            break
        vocab.setdefault(word, len(vocab))
    raw = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.decoder = decoders.WordPiece()  # joins words with spaces when decoding
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        extra_special_tokens={"image_token": "<image>"},
    )


def build_model(path: Path, shape: Shape, device: str, eos_every: int = 0) -> int:
    """Save a random LLaVA of ``shape`` (bfloat16 on CUDA, float32 elsewhere) at ``path``;
    returns its parameter count. ``eos_every`` > 0 makes every ``eos_every``-th token id an
    end-of-sequence id (uneven answer lengths); 0 makes none of them one, so every answer is
    exactly max_tokens long."""
    tokenizer = _tokenizer()
    vision = transformers.CLIPVisionConfig(
        hidden_size=shape.vision_hidden,
        intermediate_size=shape.vision_mlp,
        num_hidden_layers=shape.vision_layers,
        num_attention_heads=shape.vision_heads,
        image_size=336,
        patch_size=14,
        projection_dim=768,
    )
    text = transformers.Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=shape.hidden,
        intermediate_size=shape.mlp,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
    )
    config = transformers.LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
    )
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.LlavaForConditionalGeneration(config).to(dtype).eval()
    # No id the model can draw ends a row unless eos_every asks for it: "</s>" (2) stays the
    # template's end of turn, but generation stops only on the ids listed here.
    eos = list(range(len(_SPECIAL) + 7, VOCAB, eos_every)) if eos_every else [VOCAB + 1]
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    processor = transformers.LlavaProcessor(
        image_processor=transformers.CLIPImageProcessor(
            size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}
        ),
        tokenizer=tokenizer,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_TEMPLATE,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)
    count = sum(p.numel() for p in model.parameters())
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return count


def _picture(index: int) -> bytes:
    """A 640×480 JPEG of coloured shapes, different for every item."""
    rng = random.Random(index)
    image = Image.new("RGB", (640, 480), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = rng.randrange(560), rng.randrange(400)
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.ellipse((x, y, x + rng.randrange(20, 80), y + rng.randrange(20, 80)), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def make_store(path: Path, n: int) -> Store:
    """A store with one benchmark of ``n`` four-option items, each with its own image."""
    store = Store.open(str(path))
    put_benchmark(store, BENCHMARK, "bench", {"items": n})
    items = []
    for i in range(n):
        items.append(
            BenchmarkItem(
                id=content_id("bench-hf-gpu", i),
                benchmark=BENCHMARK,
                kind="mc",
                question=f"Which shape in the picture is red? ({i})",
                options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
                answer="ABCD"[i % 4],
                images=[store.put_image(_picture(i))],
            )
        )
    put_items(store, items)
    return store


def _conversation(messages: list[Message]) -> list[dict[str, Any]]:
    turns = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                with Image.open(io.BytesIO(part.read_bytes())) as picture:
                    content.append({"type": "image", "image": picture.convert("RGB")})
        turns.append({"role": message.role, "content": content})
    return turns


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def bare(
    model_dir: Path, store: Store, batch: int, max_tokens: int, device: str
) -> tuple[float, int, int]:
    """(seconds, items, generated tokens) of the bare transformers loop over every item."""
    build = item_messages(store, "default")
    conversations = [_conversation(build(item)) for item in iter_items(store, BENCHMARK)]
    processor = transformers.AutoProcessor.from_pretrained(model_dir)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    model = transformers.LlavaForConditionalGeneration.from_pretrained(
        model_dir, dtype=dtype, device_map=device
    ).eval()
    processor.tokenizer.padding_side = "left"

    def run(chunk: list[list[dict[str, Any]]]) -> int:
        inputs = processor.apply_chat_template(
            chunk,
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            processor_kwargs={"padding": True, "padding_side": "left"},
        ).to(device=model.device, dtype=dtype)
        with torch.inference_mode():
            out = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
        new = out[:, inputs["input_ids"].shape[1] :]
        processor.batch_decode(new, skip_special_tokens=True)
        pad = processor.tokenizer.pad_token_id
        return int((new != pad).sum().item())

    run(conversations[:batch])  # warm-up: kernels, allocator
    _sync(device)
    started = time.perf_counter()
    tokens = sum(run(conversations[i : i + batch]) for i in range(0, len(conversations), batch))
    _sync(device)
    return time.perf_counter() - started, len(conversations), tokens


async def ours(
    model_dir: Path,
    items: int,
    options: str,
    concurrency: int | None,
    max_tokens: int,
    warm_items: int,
) -> tuple[float, int, int]:
    """(seconds, items answered, generated tokens) of lvlmbench's
    runner over ``items`` items, weights loaded before the clock starts."""
    with tempfile.TemporaryDirectory() as tmp:
        store = make_store(Path(tmp) / "s.db", items)
        model = load_chat_model(f"hf/{model_dir}?{options}")
        config = GenerationConfig(max_tokens=max_tokens)
        # Warm up as the bare loop does, on a batch of the same shape: the weights load and the
        # kernels of the vision tower and a full-length prefill are chosen before the clock
        # starts. Direct model calls: nothing enters the store's cache.
        build = item_messages(store, "default")
        warm = [build(item) for item in itertools.islice(iter_items(store, BENCHMARK), warm_items)]
        await asyncio.gather(*(model.generate(messages, config) for messages in warm))
        kwargs = {} if concurrency is None else {"concurrency": concurrency}
        client = ModelClient(model, store, **kwargs)
        started = time.perf_counter()
        summary = await run_examinee(store, BENCHMARK, client, config=config)
        seconds = time.perf_counter() - started
        await client.aclose()
        store.close()
    answered = summary.ok + summary.unparseable + summary.refused
    if summary.failed:
        raise RuntimeError(f"{summary.failed} items failed: {summary.reasons}")
    return seconds, answered, summary.output_tokens


class Profile:
    """Seconds spent in the transformers back-end's steps (``--profile``): wraps the methods of
    :class:`lvlmbench.models.hf.HFChatModel` that a batch goes through."""

    STEPS = ("_generate_batch", "_encode", "_generate_rows", "_output")

    def __init__(self) -> None:
        from lvlmbench.models import hf

        self.seconds = dict.fromkeys(self.STEPS, 0.0)
        self.batches: list[float] = []  # each _generate_rows call's seconds, in order
        self.calls = dict.fromkeys(self.STEPS, 0)
        for step in self.STEPS:
            setattr(hf.HFChatModel, step, self._timed(step, getattr(hf.HFChatModel, step)))

    def _timed(self, step: str, method: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds[step] += time.perf_counter() - started
                self.calls[step] += 1
                if step == "_generate_rows":
                    self.batches.append(time.perf_counter() - started)

        return wrapper

    def report(self) -> str:
        steps = ", ".join(f"{k} {self.seconds[k]:.2f} s / {self.calls[k]}" for k in self.STEPS)
        batches = " ".join(f"{b:.2f}" for b in self.batches)
        self.batches = []
        return f"{steps}; batches since last report (s): {batches}"


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a small model of the same shape")
    parser.add_argument("--batches", default="8,32,64,128")
    parser.add_argument("--items", type=int, default=0, help="items per run (0: 2 × the batch)")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--eos-every", type=int, default=48)
    parser.add_argument("--skip", default="", help="comma list of parts to skip: auto,uneven")
    parser.add_argument("--json", type=Path, help="write every figure here too")
    parser.add_argument("--profile", action="store_true", help="time the back-end's steps")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and not args.tiny:
        print("no CUDA device: skipped (run with --tiny to exercise the script on the CPU)")
        emit(NAME, "lvlmbench / bare transformers", None, "×", "≥ 0.95", None, "skipped: no GPU")
        return 0
    shape = TINY if args.tiny else REAL
    dtype = "bfloat16" if device == "cuda" else "float32"
    results: list[dict[str, Any]] = []
    profile = Profile() if args.profile else None
    with tempfile.TemporaryDirectory() as tmp:
        even_dir, uneven_dir = Path(tmp) / "even", Path(tmp) / "uneven"
        params = build_model(even_dir, shape, device)
        print(f"model: {params / 1e9:.3f} B parameters, {device}, {dtype}; {_load()}", flush=True)
        for batch in [int(b) for b in args.batches.split(",")]:
            n = args.items or 2 * batch
            with tempfile.TemporaryDirectory() as data:
                store = make_store(Path(data) / "b.db", n)
                b_s, b_n, b_tok = bare(even_dir, store, batch, args.max_tokens, device)
                store.close()
            if device == "cuda":
                torch.cuda.empty_cache()  # the bare model is gone once bare() returned
            options = f"device={device}&dtype={dtype}&batch_size={batch}"
            o_s, o_n, o_tok = asyncio.run(
                ours(even_dir, n, options, max(batch * 2, 16), args.max_tokens, batch)
            )
            row = {
                "batch": batch,
                "items": n,
                "bare_items_s": b_n / b_s,
                "ours_items_s": o_n / o_s,
                "ratio": (o_n / o_s) / (b_n / b_s),
                "bare_tokens": b_tok,
                "ours_tokens": o_tok,
            }
            results.append(row)
            print(json.dumps(row), flush=True)
            if profile is not None:
                print(f"  steps so far: {profile.report()}", flush=True)
            emit(
                NAME,
                f"lvlmbench / bare, batch {batch}",
                row["ratio"],
                "×",
                "≥ 0.95",
                row["ratio"] >= 0.95,
                f"{n} items; bare {row['bare_items_s']:.2f} items/s, lvlmbench "
                f"{row['ours_items_s']:.2f} items/s; {device}; {_load()}",
            )
        skip = set(args.skip.split(","))
        if "auto" not in skip:
            n = args.items or 256
            s, done, tokens = asyncio.run(
                ours(even_dir, n, f"device={device}&dtype={dtype}", None, args.max_tokens, 64)
            )
            row = {"batch": "auto", "items": n, "ours_items_s": done / s}
            results.append(row)
            print(json.dumps(row), flush=True)
        if "uneven" not in skip:
            build_model(uneven_dir, shape, device, eos_every=args.eos_every)
            batch = max(int(b) for b in args.batches.split(","))
            n = args.items or 2 * batch
            options = f"device={device}&dtype={dtype}&batch_size={batch}"
            runs = {}
            for label, folder in (("same length", even_dir), ("uneven", uneven_dir)):
                run = ours(folder, n, options, 2 * batch, args.max_tokens, batch)
                s, done, tokens = asyncio.run(run)
                runs[label] = tokens / s
                print(json.dumps({"lengths": label, "tokens": tokens, "tokens_s": tokens / s}))
            ratio = runs["uneven"] / runs["same length"]
            print(f"uneven / same-length useful tokens/s: {ratio:.3f}", flush=True)
            emit(NAME, "uneven / same-length tokens/s", ratio, "×", "≥ 0.9", ratio >= 0.9, _load())
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
