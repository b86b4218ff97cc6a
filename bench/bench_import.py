"""Importing big dataset files: peak memory and rows per second of ``lvlmbench import``.

Two files, built in a temporary folder:

- a JSONL of ``--jsonl-rows`` rows (default 1,000,000) whose pictures are ``--jsonl-images``
  image files beside it (default 100), each named by many rows;
- a VLMEvalKit-layout TSV (MMBench: index, question, hint, A-D, answer, category, image,
  l2-category, split) of ``--tsv-rows`` rows (default 100,000): a quarter are questions with
  their own base64 picture, the rest CircularEval copies (index + k * 1,000,000) whose ``image``
  cell holds the base row's index, as VLMEvalKit writes them.

Each is imported into a fresh store by the real command (``python -m lvlmbench import FILE
--json``) in a child process; the figures are its wall time and rows per second, its rows per
CPU second (user + system time: less at the mercy of other processes than the wall time), its
peak resident memory (``wait4``'s ru_maxrss), and whether the summary counts the distinct
pictures stored (not one per row). Targets (issue 24.4): peak RSS <= 300 MiB and >= 5,000
rows/s on 2 cores. The machine's load average is printed with every figure (a shared
machine's figures mean little without it).

Run: ``python bench/bench_import.py [--jsonl-rows N] [--tsv-rows N]``; with
``PYTHONPATH=<another checkout>/src`` it measures that checkout's importer.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import emit
from PIL import Image

RSS_TARGET_MIB = 300
RATE_TARGET = 5_000


def _png(number: int) -> bytes:
    """A small PNG unique to ``number`` (its bytes in the first pixels)."""
    image = Image.new("RGB", (16, 16), (number % 251, (number // 251) % 251, 90))
    image.putpixel((0, 0), (number & 255, (number >> 8) & 255, (number >> 16) & 255))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def write_jsonl(folder: Path, rows: int, pictures: int) -> Path:
    for number in range(pictures):
        (folder / f"picture-{number}.png").write_bytes(_png(number))
    path = folder / "big.jsonl"
    with path.open("w", encoding="utf-8") as sink:
        for row in range(rows):
            record = {
                "id": f"q{row}",
                "question": f"Which colour is the square in picture {row % pictures}?",
                "image": f"picture-{row % pictures}.png",
                "options": ["red", "green", "blue", "grey"],
                "answer": "ABCD"[row % 4],
                "category": "colour",
            }
            sink.write(json.dumps(record) + "\n")
    return path


def write_tsv(folder: Path, rows: int) -> Path:
    path = folder / "MMBench_big.tsv"
    bases = max(1, rows // 4)
    header = "index\tquestion\thint\tA\tB\tC\tD\tanswer\tcategory\timage\tl2-category\tsplit\n"
    with path.open("w", encoding="utf-8") as sink:
        sink.write(header)
        written = 0
        for copy in range(4):
            for base in range(bases):
                if written == rows:
                    break
                index = base + copy * 1_000_000
                image = base64.b64encode(_png(base)).decode() if copy == 0 else str(base)
                options = [f"option {letter} of {base}" for letter in "ABCD"]
                answer = "ABCD"[(base + copy) % 4]
                cells = [str(index), f"Question {base}?", "nan", *options, answer]
                cells += ["attribute", image, "perception", "dev"]
                sink.write("\t".join(cells) + "\n")
                written += 1
    return path


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def run_import(path: Path, store: Path) -> tuple[float, float, float, dict[str, Any] | None, str]:
    """(seconds, CPU seconds, peak RSS MiB, the --json summary or None, stderr tail) of one
    import."""
    command = [sys.executable, "-m", "lvlmbench", "import", str(path), "--store", str(store)]
    out_path, err_path = store.with_suffix(".out"), store.with_suffix(".err")
    with out_path.open("w") as out, err_path.open("w") as err:
        started = time.perf_counter()
        child = subprocess.Popen([*command, "--json"], stdout=out, stderr=err)
        # wait4 gives this child's own peak memory (RUSAGE_CHILDREN would be the largest of
        # every child so far).
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
    text, errors = out_path.read_text(), err_path.read_text().strip()
    summary = json.loads(text) if child.returncode == 0 and text.strip() else None
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, summary, errors.splitlines()[-1] if errors else ""


def measure(label: str, path: Path, rows: int, distinct: int, folder: Path) -> None:
    load_before = _load()
    seconds, cpu, peak, summary, err = run_import(path, folder / f"{label}.db")
    note = f"{load_before} before, {_load()} after"
    if summary is None:
        print(f"{label}: import failed: {err}")
        emit("import", f"{label} import", None, "", "runs", False, err[:200])
        return
    rate = rows / seconds
    counted = summary.get("images")
    print(
        f"{label}: {rows:,} rows in {seconds:.1f} s = {rate:,.0f} rows/s ({cpu:.1f} CPU s: "
        f"{rows / cpu:,.0f} rows per CPU second), peak RSS "
        f"{peak:.0f} MiB, {summary.get('items_added')} items, {counted} images reported "
        f"({distinct} distinct); {note}"
    )
    emit("import", f"{label} rows per CPU second", rows / cpu, "rows/s", "", None, note)
    emit(
        "import",
        f"{label} rows/s",
        rate,
        "rows/s",
        f">= {RATE_TARGET:,}",
        rate >= RATE_TARGET,
        note,
    )
    emit(
        "import",
        f"{label} peak RSS",
        peak,
        "MiB",
        f"<= {RSS_TARGET_MIB}",
        peak <= RSS_TARGET_MIB,
        note,
    )
    right = counted == distinct and summary.get("items_added") == rows
    emit("import", f"{label} distinct images counted", float(right), "", "1", right, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jsonl-rows", type=int, default=1_000_000)
    parser.add_argument("--jsonl-images", type=int, default=100)
    parser.add_argument("--tsv-rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        folder = Path(tmp)
        if args.tsv_rows:
            tsv = write_tsv(folder, args.tsv_rows)
            size = tsv.stat().st_size / 2**20
            print(f"VLMEvalKit TSV: {args.tsv_rows:,} rows, {size:.0f} MiB")
            measure(
                "tsv", tsv, args.tsv_rows, min(args.tsv_rows, max(1, args.tsv_rows // 4)), folder
            )
        if args.jsonl_rows:
            jsonl = write_jsonl(folder, args.jsonl_rows, args.jsonl_images)
            size = jsonl.stat().st_size / 2**20
            print(f"JSONL: {args.jsonl_rows:,} rows, {size:.0f} MiB")
            pictures = min(args.jsonl_rows, args.jsonl_images)
            measure("jsonl", jsonl, args.jsonl_rows, pictures, folder)


if __name__ == "__main__":
    main()
