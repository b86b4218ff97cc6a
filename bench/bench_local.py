"""Local transformers models at the GPU's speed: lvlmbench's runner against a bare loop.

A LLaVA-shaped model of realistic size is built with random weights (a CLIP-L/14-336 vision
tower, 576 image tokens; a Qwen2-1.5B-shaped decoder: 28 layers, hidden 1536, 2 KV heads, a
151,936-word vocabulary, untied head; about 2.09 B parameters; sdpa attention) and saved, so both
sides load the same checkpoint. The same multiple-choice items (one 640×480 JPEG each, the prompt
lvlmbench's runner builds, about 617 prompt tokens) are answered greedily with exactly
``--max-tokens`` new tokens (no id the model can draw ends a row):

- bare: the loop a user would write with transformers alone: ``apply_chat_template`` through
  the processor with padding, ``generate``, ``batch_decode``; images decoded to PIL before the
  clock starts; timed with ``cuda.synchronize``;
- lvlmbench: ``hf/DIR?batch_size=B`` through the runner and ``ModelClient`` (its default
  concurrency: no ``--concurrency``) into a fresh store (images read from the store, prompts
  built, answers stored), the weights loaded and one batch of the run's shape answered before
  the clock starts.

One JSON line per part (``--json`` collects them), each part guarded so a failure prints its
traceback and the others still report:

- ``fixed``: per batch size, items/s of both and the ratio (target ≥ 0.95), how many answers
  equal the bare loop's (greedy; on a GPU bfloat16 batches may differ in a few), peak GPU
  memory; at ``--overlap-off-at`` also lvlmbench with ``overlap=false`` (preparation on the
  generation thread) and the gain of the overlap;
- ``auto``: ``batch_size=auto``, the batch the memory probe chose per replica, out-of-memory
  halvings, items/s, peak memory, and items/s against the best bare batch size (target ≥ 0.9);
- ``uneven``: the checkpoint whose end-of-sequence ids are 1 in ``--eos-every`` of the vocabulary
  (rows stop at different points) against answers of exactly their mean length: useful tokens/s
  of both and the ratio (target ≥ 0.9), and the same with ``continuous=false`` (whole batches,
  as ``generate`` runs them).

``--tiny`` builds a small model of the same shape (the prompt keeps its 576 image tokens) so the
script runs on a CPU in about a minute. Run: ``python bench/bench_hf_gpu.py [--tiny]
[--batches 8,16,32,64,128] [--items N] [--json out.json]``. Needs the ``hf`` extra. Figures also
go to ``$LVLMBENCH_BENCH_JSON`` (bench/figures.py); without a CUDA device and without ``--tiny``
it prints that it was skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import io
import itertools
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
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
from lvlmbench.store import Store, iter_items, iter_responses, put_benchmark, put_items
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
) -> tuple[float, dict[str, str], int]:
    """(seconds, answer text per item id, generated tokens) of the bare transformers loop."""
    build = item_messages(store, "default")
    items = list(iter_items(store, BENCHMARK))
    conversations = [_conversation(build(item)) for item in items]
    processor = transformers.AutoProcessor.from_pretrained(model_dir)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    model = transformers.LlavaForConditionalGeneration.from_pretrained(
        model_dir, dtype=dtype, device_map=device
    ).eval()
    processor.tokenizer.padding_side = "left"
    pad = processor.tokenizer.pad_token_id

    def run(chunk: list[list[dict[str, Any]]]) -> tuple[list[str], int]:
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
        texts = processor.batch_decode(new, skip_special_tokens=True)
        return texts, int((new != pad).sum().item())

    run(conversations[:batch])  # warm-up: kernels, allocator
    _sync(device)
    started = time.perf_counter()
    texts: list[str] = []
    tokens = 0
    for i in range(0, len(conversations), batch):
        chunk_texts, chunk_tokens = run(conversations[i : i + batch])
        texts += chunk_texts
        tokens += chunk_tokens
    _sync(device)
    seconds = time.perf_counter() - started
    return seconds, {item.id: text for item, text in zip(items, texts, strict=True)}, tokens


@dataclass
class Run:
    """One lvlmbench run: wall seconds, items answered, generated tokens, answers, batch rows
    each replica ended with, out-of-memory halvings, peak device memory (GiB)."""

    seconds: float
    items: int
    tokens: int
    texts: dict[str, str]
    rows: list[int]
    halvings: int
    peak_gib: float

    @property
    def items_s(self) -> float:
        return self.items / self.seconds

    @property
    def tokens_s(self) -> float:
        return self.tokens / self.seconds


async def ours(model_dir: Path, items: int, options: str, max_tokens: int, warm_items: int) -> Run:
    """lvlmbench's runner over ``items`` items with ``options`` and the client's default
    concurrency; weights loaded and a batch of the run's shape answered before the clock."""
    with tempfile.TemporaryDirectory() as tmp:
        store = make_store(Path(tmp) / "s.db", items)
        model = load_chat_model(f"hf/{model_dir}?{options}")
        config = GenerationConfig(max_tokens=max_tokens)
        # Direct model calls: nothing enters the store's cache.
        build = item_messages(store, "default")
        warm = [build(item) for item in itertools.islice(iter_items(store, BENCHMARK), warm_items)]
        await asyncio.gather(*(model.generate(messages, config) for messages in warm))
        device = getattr(model, "device", "cpu")
        if device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        client = ModelClient(model, store)
        started = time.perf_counter()
        summary = await run_examinee(store, BENCHMARK, client, config=config)
        seconds = time.perf_counter() - started
        peak = torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else 0.0
        texts = {r.item_id: r.text or "" for r in iter_responses(store)}
        rows, halvings = model.batch_rows(), model.out_of_memory_halvings()
        await client.aclose()
        store.close()
    _free(device)
    if summary.failed:
        raise RuntimeError(f"{summary.failed} items failed: {summary.reasons}")
    answered = summary.ok + summary.unparseable + summary.refused
    return Run(seconds, answered, summary.output_tokens, texts, rows, halvings, peak)


def _free(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _same(a: dict[str, str], b: dict[str, str]) -> str:
    equal = sum(1 for key in a if a[key] == b.get(key))
    return f"{equal}/{len(a)}"


@dataclass
class Bench:
    """The settings every part shares, and every figure printed."""

    device: str
    dtype: str
    max_tokens: int
    items: int
    tiny: bool
    results: list[dict[str, Any]]

    def options(self, extra: str = "") -> str:
        base = f"device={self.device}&dtype={self.dtype}"
        return f"{base}&{extra}" if extra else base

    json_path: Path | None = None

    def record(self, row: dict[str, Any]) -> None:
        """Print ``row`` and rewrite ``--json`` with every row so far (a run cut short by a
        timeout keeps what it measured)."""
        self.results.append(row)
        print(json.dumps(row), flush=True)
        if self.json_path is not None:
            self.json_path.write_text(json.dumps(self.results, indent=1), encoding="utf-8")

    def count(self, batch: int) -> int:
        """Items per run: --items, or 128 up to batch 32 and 256 above (64 at batch 8)."""
        if self.items:
            return self.items
        return 64 if batch <= 8 else 128 if batch <= 32 else 256


def part_fixed(bench: Bench, folder: Path, batch: int, overlap_off: bool) -> None:
    """Bare loop against lvlmbench at a fixed batch size (and, if asked, without overlap)."""
    n = bench.count(batch)
    with tempfile.TemporaryDirectory() as data:
        store = make_store(Path(data) / "b.db", n)
        b_s, b_texts, _ = bare(folder, store, batch, bench.max_tokens, bench.device)
        store.close()
    _free(bench.device)  # the bare model is gone once bare() returned
    run = asyncio.run(
        ours(folder, n, bench.options(f"batch_size={batch}"), bench.max_tokens, batch)
    )
    ratio = run.items_s / (n / b_s)
    row = {
        "part": "fixed",
        "batch": batch,
        "items": n,
        "bare_items_s": round(n / b_s, 3),
        "ours_items_s": round(run.items_s, 3),
        "ratio": round(ratio, 3),
        "answers_equal_bare": _same(b_texts, run.texts),
        "peak_gib": round(run.peak_gib, 2),
    }
    if overlap_off:
        off = asyncio.run(
            ours(
                folder,
                n,
                bench.options(f"batch_size={batch}&overlap=false"),
                bench.max_tokens,
                batch,
            )
        )
        row["ours_no_overlap_items_s"] = round(off.items_s, 3)
        row["overlap_gain"] = round(run.items_s / off.items_s, 3)
    bench.record(row)
    emit(
        NAME,
        f"lvlmbench / bare, batch {batch}",
        ratio,
        "×",
        "≥ 0.95",
        ratio >= 0.95,
        f"{n} items; bare {n / b_s:.2f} items/s, lvlmbench {run.items_s:.2f} items/s; "
        f"{bench.device}; {_load()}",
    )


def part_auto(bench: Bench, folder: Path, best_bare: float | None) -> None:
    """``batch_size=auto`` with the client's default concurrency."""
    n = bench.items or (64 if bench.tiny else 512)
    run = asyncio.run(ours(folder, n, bench.options(), bench.max_tokens, 64))
    row: dict[str, Any] = {
        "part": "auto",
        "items": n,
        "batch_chosen": run.rows,
        "oom_halvings": run.halvings,
        "ours_items_s": round(run.items_s, 3),
        "peak_gib": round(run.peak_gib, 2),
    }
    if best_bare:
        row["vs_best_bare"] = round(run.items_s / best_bare, 3)
        emit(
            NAME,
            "auto / best bare batch",
            row["vs_best_bare"],
            "×",
            "≥ 0.9",
            row["vs_best_bare"] >= 0.9,
            f"batch chosen {run.rows}; {_load()}",
        )
    bench.record(row)


def part_uneven(bench: Bench, even: Path, uneven: Path, batch: int) -> None:
    """Mixed answer lengths against answers of their mean length, continuous on and off."""
    n = bench.count(batch)
    opts = f"batch_size={batch}"
    mixed = asyncio.run(ours(uneven, n, bench.options(opts), bench.max_tokens, batch))
    mean = max(1, round(mixed.tokens / mixed.items))
    same = asyncio.run(ours(even, n, bench.options(opts), mean, batch))
    static = asyncio.run(
        ours(uneven, n, bench.options(f"{opts}&continuous=false"), bench.max_tokens, batch)
    )
    ratio = mixed.tokens_s / same.tokens_s
    bench.record(
        {
            "part": "uneven",
            "batch": batch,
            "items": n,
            "mean_tokens": round(mixed.tokens / mixed.items, 2),
            "same_length_tokens_s": round(same.tokens_s, 1),
            "uneven_tokens_s": round(mixed.tokens_s, 1),
            "ratio": round(ratio, 3),
            "uneven_static_tokens_s": round(static.tokens_s, 1),
            "static_ratio": round(static.tokens_s / same.tokens_s, 3),
            "continuous_equals_static": _same(mixed.texts, static.texts),
        }
    )
    emit(NAME, "uneven / same-length tokens/s", ratio, "×", "≥ 0.9", ratio >= 0.9, _load())


def _guarded(name: str, part: Any, *args: Any) -> Any:
    """Run one part; a failure prints its error and lets the others run."""
    try:
        return part(*args)
    except Exception:  # one failing part must not lose the others' figures
        print(f"part {name} failed:", flush=True)
        traceback.print_exc()
        return None


def uneven_copy(even: Path, uneven: Path, eos_every: int) -> None:
    """The same checkpoint whose end-of-sequence ids are 1 in ``eos_every`` of the vocabulary."""
    shutil.copytree(even, uneven)
    config_path = uneven / "generation_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["eos_token_id"] = list(range(len(_SPECIAL) + 7, VOCAB, eos_every))
    config_path.write_text(json.dumps(config), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a small model of the same shape")
    parser.add_argument("--batches", default="", help="default 8,16,32,64,128 (--tiny: 8,32)")
    parser.add_argument("--items", type=int, default=0, help="items per run (0: by batch)")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--eos-every", type=int, default=48)
    parser.add_argument("--overlap-off-at", type=int, default=64, help="batch run both ways")
    parser.add_argument("--skip", default="", help="comma list of parts: fixed,auto,uneven")
    parser.add_argument("--json", type=Path, help="write every figure here too")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and not args.tiny:
        print("no CUDA device: skipped (run with --tiny to exercise the script on the CPU)")
        emit(NAME, "lvlmbench / bare transformers", None, "×", "≥ 0.95", None, "skipped: no GPU")
        return 0
    dtype = "bfloat16" if device == "cuda" else "float32"
    bench = Bench(device, dtype, args.max_tokens, args.items, args.tiny, [], args.json)
    # `timeout` sends SIGTERM: end through the finally blocks (temp dirs removed, figures kept).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    skip = set(args.skip.split(","))
    batches = [
        int(b) for b in (args.batches or ("8,32" if args.tiny else "8,16,32,64,128")).split(",")
    ]
    if args.tiny and not args.items:
        bench.items = 32
    card = torch.cuda.get_device_name() if device == "cuda" else "CPU"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            even, uneven = Path(tmp) / "even", Path(tmp) / "uneven"
            params = build_model(even, TINY if args.tiny else REAL, device)
            bench.record(
                {
                    "part": "model",
                    "card": card,
                    "params_b": round(params / 1e9, 3),
                    "dtype": dtype,
                    "torch": torch.__version__,
                    "transformers": transformers.__version__,
                }
            )
            if "fixed" not in skip:
                for batch in batches:
                    _guarded(
                        f"fixed {batch}",
                        part_fixed,
                        bench,
                        even,
                        batch,
                        batch == args.overlap_off_at,
                    )
            fixed = [r["bare_items_s"] for r in bench.results if r.get("part") == "fixed"]
            if "auto" not in skip:
                _guarded("auto", part_auto, bench, even, max(fixed, default=None))
            if "uneven" not in skip:
                uneven_copy(even, uneven, args.eos_every)
                _guarded("uneven", part_uneven, bench, even, uneven, max(batches))
    finally:
        print(f"done: {len(bench.results)} rows; {_load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
