"""Local transformers models at the GPU's speed: lvlmbench's runner against a bare loop.

The model is bench/local_model.py's random LLaVA of realistic size (2.09 B parameters; ``--tiny``:
the same layout, small). The same multiple-choice items (one 640×480 JPEG each, the prompt
lvlmbench's runner builds, about 617 prompt tokens) are answered greedily, every answer exactly
``--max-tokens`` long (checked on both sides: ``exact_lengths``):

- bare: the loop a user would write with transformers alone: ``apply_chat_template`` through
  the processor with padding, ``generate``, ``batch_decode``; images decoded to PIL before the
  clock starts; timed with ``cuda.synchronize``;
- lvlmbench: ``hf/DIR?batch_size=B`` through the runner and ``ModelClient`` (its default
  concurrency: no ``--concurrency``) into a fresh store (images read from the store, prompts
  built, answers stored), the weights loaded and one batch of the run's shape answered before
  the clock starts.

One JSON line per part (``--json`` collects them), each part guarded so a failure prints its
traceback and the others still report. Every lvlmbench run also says what it ran: ``calls``
(``generate`` calls, or prefills with continuous batching), the mean and least rows of a call,
and (continuous batching) decode ``steps``, their mean rows and the ``refills`` (prefills
merged into rows still answering).

- ``fixed``: per batch size, items/s of both and the ratio (target ≥ 0.95), how many answers
  equal the bare loop's (float32 on a CPU: all must; bfloat16 on a GPU: information only, random
  weights give near-flat logits whose argmax flips on rounding), peak GPU memory; and each
  ``--variants`` option set (e.g. ``continuous=true``) run the same way;
- ``auto``: ``batch_size=auto``, the batch the memory probe chose per replica, out-of-memory
  halvings, items/s, peak memory, and items/s against the best bare batch size (target ≥ 0.9);
- ``uneven``: the checkpoint whose end-of-sequence ids are 1 in ``--eos-every`` of the
  vocabulary (rows stop at different points) against answers of exactly their mean length:
  useful tokens/s of both and the ratio (target ≥ 0.9), the bare loop's own ratio on the same
  items (``bare_ratio``: what one ``generate`` call per batch allows), and each variant.

Every lvlmbench run also says where its replicas' time went: ``decode_s`` (images),
``process_s`` (the processor), ``generate_s`` and ``idle_s`` (the generation thread waiting for
a prepared group while requests waited); fixed parts add the bare loop's ``bare_generate_s``.

Run: ``python bench/bench_local.py [--tiny] [--batches 8,32,64,128] [--variants
"continuous=true;overlap=false"] [--uneven-variants continuous=true] [--items N]
[--uneven-items N] [--auto-items N[,N]] [--json out.json]``. Needs the ``hf`` extra. Figures
also go to ``$LVLMBENCH_BENCH_JSON`` (bench/figures.py); without a CUDA device and without
``--tiny`` it prints that it was skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import transformers
from figures import emit
from local_model import (
    BENCHMARK,
    REAL,
    TINY,
    build_model,
    conversation,
    make_store,
    uneven_copy,
)

from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import item_messages, run_examinee
from lvlmbench.store import Store, iter_items, iter_responses
from lvlmbench.types import GenerationConfig

NAME = "local"


@dataclass
class Answers:
    """One side's answers: text and generated tokens per item id."""

    texts: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    generate_s: float = 0.0

    def exact(self, max_tokens: int) -> bool:
        """Whether every answer is exactly ``max_tokens`` long."""
        return bool(self.tokens) and all(n == max_tokens for n in self.tokens.values())

    def same_as(self, other: Answers) -> str:
        equal = sum(1 for key, text in self.texts.items() if other.texts.get(key) == text)
        return f"{equal}/{len(self.texts)}"


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def bare(
    model_dir: Path, store: Store, batch: int, max_tokens: int, device: str
) -> tuple[float, Answers]:
    """Seconds and answers of the bare transformers loop (``Answers.generate_s``: the part
    of the seconds spent in ``generate``)."""
    items = list(iter_items(store, BENCHMARK))
    build = item_messages(store, "default")
    conversations = [conversation(build(item)) for item in items]
    processor = transformers.AutoProcessor.from_pretrained(model_dir)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    model = transformers.LlavaForConditionalGeneration.from_pretrained(
        model_dir, dtype=dtype, device_map=device
    ).eval()
    pad = processor.tokenizer.pad_token_id
    spent = [0.0]

    def run(chunk: list[list[dict[str, Any]]]) -> list[list[int]]:
        inputs = processor.apply_chat_template(
            chunk,
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            processor_kwargs={"padding": True, "padding_side": "left"},
        ).to(device=model.device, dtype=dtype)
        began = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
        rows = out[:, inputs["input_ids"].shape[1] :].tolist()
        spent[0] += time.perf_counter() - began
        return rows

    run(conversations[:batch])  # warm-up: kernels, allocator
    _sync(device)
    spent[0] = 0.0
    started = time.perf_counter()
    rows: list[list[int]] = []
    for i in range(0, len(conversations), batch):
        rows += run(conversations[i : i + batch])
    _sync(device)
    seconds = time.perf_counter() - started
    answers = Answers(generate_s=spent[0])
    for item, ids in zip(items, rows, strict=True):
        kept = [t for t in ids if t != pad]
        answers.texts[item.id] = processor.decode(kept, skip_special_tokens=True)
        answers.tokens[item.id] = len(kept)
    return seconds, answers


@dataclass
class Run:
    """One lvlmbench run: wall seconds, items answered, answers, and what the replicas ran."""

    seconds: float
    items: int
    answers: Answers
    rows: list[int]
    """Batch rows each replica ended with (what ``auto`` chose, after halvings)."""
    halvings: int
    peak_gib: float
    calls: list[int]
    steps: int
    step_rows: int
    refills: int
    seconds_in: dict[str, float] = field(default_factory=dict)
    """Where the replicas' time went: decoding images, the processor, generating, and the
    generation thread waiting for a prepared group."""

    @property
    def items_s(self) -> float:
        return self.items / self.seconds

    @property
    def tokens_s(self) -> float:
        return sum(self.answers.tokens.values()) / self.seconds

    def shape(self) -> dict[str, Any]:
        """What it ran: calls (generate calls or prefills), their mean and least rows, steps."""
        shown: dict[str, Any] = {
            "calls": len(self.calls),
            "rows_mean": round(sum(self.calls) / max(1, len(self.calls)), 1),
            "rows_min": min(self.calls, default=0),
        }
        shown.update({f"{part}_s": round(value, 3) for part, value in self.seconds_in.items()})
        if self.steps:
            shown["steps"] = self.steps
            shown["step_rows_mean"] = round(self.step_rows / self.steps, 1)
            shown["refills"] = self.refills
        return shown


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
        before = model.batch_log()
        device = getattr(model, "device", "cpu")
        if device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        client = ModelClient(model, store)
        started = time.perf_counter()
        summary = await run_examinee(store, BENCHMARK, client, config=config)
        seconds = time.perf_counter() - started
        peak = torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else 0.0
        answers = Answers()
        for response in iter_responses(store):
            answers.texts[response.item_id] = response.text or ""
            answers.tokens[response.item_id] = response.usage.output_tokens
        log = model.batch_log()
        run = Run(
            seconds,
            summary.ok + summary.unparseable + summary.truncated_unread + summary.refused,
            answers,
            model.batch_rows(),
            model.out_of_memory_halvings(),
            peak,
            log.groups[len(before.groups) :],
            log.steps - before.steps,
            log.step_rows - before.step_rows,
            log.refills - before.refills,
            {
                "decode": log.decode_s - before.decode_s,
                "process": log.process_s - before.process_s,
                "generate": log.generate_s - before.generate_s,
                "idle": log.idle_s - before.idle_s,
            },
        )
        await client.aclose()
        store.close()
    _free(device)
    if summary.failed:
        raise RuntimeError(f"{summary.failed} items failed: {summary.reasons}")
    return run


def _free(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass
class Bench:
    """The settings every part shares, and every figure printed."""

    device: str
    dtype: str
    max_tokens: int
    items: int
    variants: list[str]
    results: list[dict[str, Any]] = field(default_factory=list)
    json_path: Path | None = None

    def options(self, extra: str = "") -> str:
        base = f"device={self.device}&dtype={self.dtype}"
        return f"{base}&{extra}" if extra else base

    def record(self, row: dict[str, Any]) -> None:
        """Print ``row`` and rewrite ``--json`` with every row so far (a run cut short by a
        timeout keeps what it measured)."""
        self.results.append(row)
        print(json.dumps(row), flush=True)
        if self.json_path is not None:
            self.json_path.write_text(json.dumps(self.results, indent=1), encoding="utf-8")

    def count(self, batch: int) -> int:
        """Items per run: --items, or 64 at batch 8, 128 up to batch 32 and 256 above."""
        if self.items:
            return self.items
        return 64 if batch <= 8 else 128 if batch <= 32 else 256

    def run(self, folder: Path, n: int, extra: str, warm: int, max_tokens: int = 0) -> Run:
        tokens = max_tokens or self.max_tokens
        return asyncio.run(ours(folder, n, self.options(extra), tokens, warm))


def part_fixed(bench: Bench, folder: Path, batch: int) -> None:
    """Bare loop against lvlmbench at a fixed batch size (and each variant)."""
    n = bench.count(batch)
    with tempfile.TemporaryDirectory() as data:
        store = make_store(Path(data) / "b.db", n)
        b_s, bare_answers = bare(folder, store, batch, bench.max_tokens, bench.device)
        store.close()
    _free(bench.device)
    bare_items_s = n / b_s
    run = bench.run(folder, n, f"batch_size={batch}", batch)
    ratio = run.items_s / bare_items_s
    row: dict[str, Any] = {
        "part": "fixed",
        "batch": batch,
        "items": n,
        "bare_items_s": round(bare_items_s, 3),
        "ours_items_s": round(run.items_s, 3),
        "ratio": round(ratio, 3),
        "bare_generate_s": round(bare_answers.generate_s, 3),
        "bare_s": round(b_s, 3),
        "ours_s": round(run.seconds, 3),
        **run.shape(),
        "answers_equal_bare": run.answers.same_as(bare_answers),
        "exact_lengths": bare_answers.exact(bench.max_tokens)
        and run.answers.exact(bench.max_tokens),
        "peak_gib": round(run.peak_gib, 2),
    }
    for variant in bench.variants:
        other = bench.run(folder, n, f"batch_size={batch}&{variant}", batch)
        row[variant] = {
            "items_s": round(other.items_s, 3),
            "ratio": round(other.items_s / bare_items_s, 3),
            **other.shape(),
            "answers_equal_bare": other.answers.same_as(bare_answers),
        }
    bench.record(row)
    emit(
        NAME,
        f"lvlmbench / bare, batch {batch}",
        ratio,
        "×",
        "≥ 0.95",
        ratio >= 0.95,
        f"{n} items; bare {bare_items_s:.2f} items/s, lvlmbench {run.items_s:.2f} items/s, "
        f"{len(run.calls)} calls; {bench.device}; {_load()}",
    )


def part_auto(bench: Bench, folder: Path, n: int, best_bare: float | None) -> None:
    """``batch_size=auto`` with the client's default concurrency."""
    run = bench.run(folder, n, "", min(n, 64))
    row: dict[str, Any] = {
        "part": "auto",
        "items": n,
        "batch_chosen": run.rows,
        "oom_halvings": run.halvings,
        "ours_items_s": round(run.items_s, 3),
        **run.shape(),
        "exact_lengths": run.answers.exact(bench.max_tokens),
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


def part_uneven(
    bench: Bench, even: Path, uneven: Path, batch: int, n: int, variants: list[str]
) -> None:
    """Mixed answer lengths against answers of their mean length (and each variant)."""
    n = n or bench.count(batch)
    opts = f"batch_size={batch}"
    mixed = bench.run(uneven, n, opts, batch)
    mean = max(1, round(sum(mixed.answers.tokens.values()) / max(1, mixed.items)))
    same = bench.run(even, n, opts, batch, max_tokens=mean)
    ratio = mixed.tokens_s / same.tokens_s
    bare_ratio = _bare_uneven_ratio(bench, even, uneven, batch, n, mean)
    row: dict[str, Any] = {
        "part": "uneven",
        "batch": batch,
        "items": n,
        "mean_tokens": round(sum(mixed.answers.tokens.values()) / max(1, mixed.items), 2),
        "shortest": min(mixed.answers.tokens.values(), default=0),
        "same_length_tokens_s": round(same.tokens_s, 1),
        "uneven_tokens_s": round(mixed.tokens_s, 1),
        "ratio": round(ratio, 3),
        "bare_ratio": round(bare_ratio, 3),
        **mixed.shape(),
    }
    for variant in variants:
        other = bench.run(uneven, n, f"{opts}&{variant}", batch)
        row[variant] = {
            "uneven_tokens_s": round(other.tokens_s, 1),
            "ratio": round(other.tokens_s / same.tokens_s, 3),
            **other.shape(),
            "answers_equal_default": other.answers.same_as(mixed.answers),
        }
    bench.record(row)
    emit(NAME, "uneven / same-length tokens/s", ratio, "×", "≥ 0.9", ratio >= 0.9, _load())


def _bare_uneven_ratio(
    bench: Bench, even: Path, uneven: Path, batch: int, n: int, mean: int
) -> float:
    """The same measure for the bare loop (uneven useful tokens/s against answers of the mean
    length): what one ``generate`` call per batch allows, whoever makes the calls."""
    with tempfile.TemporaryDirectory() as data:
        store = make_store(Path(data) / "u.db", n)
        mixed_s, mixed = bare(uneven, store, batch, bench.max_tokens, bench.device)
        _free(bench.device)
        same_s, same = bare(even, store, batch, mean, bench.device)
        store.close()
    _free(bench.device)
    return (sum(mixed.tokens.values()) / mixed_s) / (sum(same.tokens.values()) / same_s)


def _guarded(name: str, part: Any, *args: Any) -> Any:
    """Run one part; a failure prints its error and lets the others run."""
    try:
        return part(*args)
    except Exception:  # one failing part must not lose the others' figures
        print(f"part {name} failed:", flush=True)
        traceback.print_exc()
        return None


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a small model of the same layout")
    parser.add_argument("--batches", default="", help="default 8,32,64,128 (--tiny: 4,16)")
    parser.add_argument("--items", type=int, default=0, help="items per run (0: by batch)")
    parser.add_argument("--auto-items", default="", help="comma list, default 512 (--tiny: 16)")
    parser.add_argument("--max-tokens", type=int, default=0, help="default 64 (--tiny: 12)")
    parser.add_argument("--eos-every", type=int, default=48)
    parser.add_argument(
        "--variants", default="", help="option sets also run, ';'-separated: continuous=true"
    )
    parser.add_argument("--uneven-items", type=int, default=0, help="default: as --items")
    parser.add_argument("--uneven-variants", help="default: --variants")
    parser.add_argument("--skip", default="", help="comma list of parts: fixed,auto,uneven")
    parser.add_argument("--json", type=Path, help="write every figure here too")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and not args.tiny:
        print("no CUDA device: skipped (run with --tiny to exercise the script on the CPU)")
        emit(NAME, "lvlmbench / bare transformers", None, "×", "≥ 0.95", None, "skipped: no GPU")
        return 0
    bench = Bench(
        device,
        "bfloat16" if device == "cuda" else "float32",
        args.max_tokens or (12 if args.tiny else 64),
        args.items or (16 if args.tiny else 0),
        [v for v in args.variants.split(";") if v],
        json_path=args.json,
    )
    # `timeout` sends SIGTERM: end through the finally blocks (temp dirs removed, figures kept).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    skip = set(args.skip.split(","))
    batches = [
        int(b) for b in (args.batches or ("4,16" if args.tiny else "8,32,64,128")).split(",")
    ]
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            even, uneven = Path(tmp) / "even", Path(tmp) / "uneven"
            params = build_model(even, TINY if args.tiny else REAL, device)
            bench.record(
                {
                    "part": "model",
                    "card": torch.cuda.get_device_name() if device == "cuda" else "CPU",
                    "params_b": round(params / 1e9, 3),
                    "dtype": bench.dtype,
                    "torch": torch.__version__,
                    "transformers": transformers.__version__,
                }
            )
            if "fixed" not in skip:
                for batch in batches:
                    _guarded(f"fixed {batch}", part_fixed, bench, even, batch)
            if "uneven" not in skip:
                uneven_copy(even, uneven, args.eos_every)
                variants = bench.variants
                if args.uneven_variants is not None:
                    variants = [v for v in args.uneven_variants.split(";") if v]
                part = (bench, even, uneven, max(batches), args.uneven_items, variants)
                _guarded("uneven", part_uneven, *part)
            fixed = [r["bare_items_s"] for r in bench.results if r.get("part") == "fixed"]
            if "auto" not in skip:
                best = max(fixed, default=None)
                for count in (args.auto_items or ("16" if args.tiny else "512")).split(","):
                    _guarded(f"auto {count}", part_auto, bench, even, int(count), best)
    finally:
        seconds = time.perf_counter() - started
        print(f"done: {len(bench.results)} rows in {seconds:.0f} s; {_load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
