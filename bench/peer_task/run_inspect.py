"""The inspect_ai side of bench/bench_peer.py: ``run_inspect.py OUT_JSON BASE_URL N C LOG_DIR``.

Run with the Python of a venv holding inspect-ai (not ours). The items match
bench/bench_orchestration.py's ``make_store``: four options, answer ``"ABCD"[i % 4]`` and one
64x64 red PNG each, built in memory as inspect Samples. The model is inspect's
OpenAI-compatible chat provider (``openai-api/fake/fake``: base URL from ``FAKE_BASE_URL``),
``max_connections`` = ``max_samples`` = C; solver ``generate()``, scorer a regex on the
answer letter. Writes the import and ``eval()`` seconds and what the log says as JSON.
"""

from __future__ import annotations

import time

_started = time.perf_counter()

import base64  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402
import zlib  # noqa: E402

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText  # noqa: E402
from inspect_ai.scorer import pattern  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

_imported = time.perf_counter()


def red_png(side: int = 64) -> bytes:
    """A side×side RGB PNG of one red, written by hand (this venv has no Pillow)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes((200, 40, 40)) * side for _ in range(side))
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows)),
            chunk(b"IEND", b""),
        )
    )


def samples(n: int) -> list[Sample]:
    url = "data:image/png;base64," + base64.b64encode(red_png()).decode("ascii")
    options = ["circle", "square", "star", "heart"]
    listed = "\n".join(f"{letter}. {text}" for letter, text in zip("ABCD", options, strict=True))
    return [
        Sample(
            id=i,
            input=[
                ChatMessageUser(
                    content=[
                        ContentImage(image=url),
                        ContentText(
                            text=f"Question {i}: which shape is red?\n{listed}\n"
                            "Answer with the option's letter."
                        ),
                    ]
                )
            ],
            target="ABCD"[i % 4],
        )
        for i in range(n)
    ]


def main() -> None:
    out, base_url, n, concurrency, log_dir = sys.argv[1:6]
    os.environ["FAKE_BASE_URL"] = base_url
    os.environ["FAKE_API_KEY"] = "bench"
    task = Task(
        dataset=MemoryDataset(samples(int(n))),
        solver=generate(),
        scorer=pattern(r"\b([A-D])\b"),
    )
    started, cpu = time.perf_counter(), time.process_time()
    logs = eval(
        task,
        model="openai-api/fake/fake",
        max_connections=int(concurrency),
        max_samples=int(concurrency),
        log_dir=log_dir,
        display="none",
        log_samples=True,
    )
    evaluate, cpu = time.perf_counter() - started, time.process_time() - cpu
    log = logs[0]
    completed = log.results.completed_samples if log.results else 0
    timings = {
        "import_s": _imported - _started,
        "evaluate_s": evaluate,
        "cpu_s": cpu,
        "status": log.status,
        "completed": completed,
        "error": str(log.error.message) if log.error else None,
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(timings, handle)


if __name__ == "__main__":
    main()
