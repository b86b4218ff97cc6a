"""Resuming right after ``kill -9``: does the resumed run wait for the dead run's leases?

An ``lvlmbench evaluate`` (and a ``judge pairwise``) against a local OpenAI-compatible server is
killed with SIGKILL once part of its answers are in, and run again at once on the same SQLite
store with the default lease period (60 s). The dead run never released the leases of what it
had in flight. Printed: the resumed run's wall time against a clean run of the same work, and
the requests it sent. A run that takes a dead owner's units over at once finishes in about the
clean time; one that waits for the leases to expire takes about a lease period longer (target:
the resume takes at most the clean run's time plus 10 s).

Run: ``python bench/bench_kill_resume.py [--items N] [--latency-ms L]``.
Each figure is also appended as a JSON line to ``$LVLMBENCH_BENCH_JSON`` when it is set (see
bench/figures.py).
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit
from PIL import Image
from text_items import fill_text_items

from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import Response

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from fake_openai_server import FakeOpenAIServer  # noqa: E402

NAME = "kill_resume"
BENCHMARK = "bench-kill"
PLAYERS = ("team/a", "team/b")
SLACK_S = 10.0


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LVLMBENCH_")}
    return env | {"PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src"))}


def _rows(db: Path, table: str) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _evaluate(db: Path, url: str) -> list[str]:
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCHMARK, "--json"]
    return [*cmd, "-m", f"openai/fake?base_url={url}", "--concurrency", "8", "--store", str(db)]


def _judge(db: Path, url: str) -> list[str]:
    cmd = [sys.executable, "-m", "lvlmbench", "judge", "pairwise", "visit", "--json"]
    cmd += [arg for player in PLAYERS for arg in ("-m", player)]
    return [*cmd, "-j", f"openai/judge?base_url={url}", "--concurrency", "8", "--store", str(db)]


def _text_store(db: Path, items: int) -> None:
    store = Store.open(str(db))
    fill_text_items(store, BENCHMARK, items)
    store.close()


def _visit_store(db: Path, items: int) -> None:
    """An imported VisIT-Bench CSV with two players' answers: ``2 × items`` judge calls."""
    folder = db.parent / f"{db.stem}-visit"
    folder.mkdir()
    rows = []
    for i in range(items):
        Image.new("RGB", (8, 8), (i % 256, 40, 90)).save(folder / f"img{i}.png")
        rows.append([f"Describe picture {i}.", "describe", f"img{i}.png", f"Picture {i}."])
    path = folder / "visit.csv"
    with path.open("w", newline="") as sink:
        writer = csv.writer(sink)
        writer.writerow(["instruction", "instruction_category", "image", "reference_output"])
        writer.writerows(rows)
    cmd = [sys.executable, "-m", "lvlmbench", "import", str(path), "-f", "visit"]
    subprocess.run([*cmd, "--name", "visit", "--store", str(db)], check=True, env=_env())
    store = Store.open(str(db))
    answers = [
        Response(item_id=item.id, model=player, text=f"{player} sees {item.question}")
        for item in iter_items(store, "visit")
        for player in PLAYERS
    ]
    put_responses(store, answers)
    store.close()


def _timed(cmd: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=_env(), timeout=900, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{cmd[3]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - started


def measure(kind: str, items: int, latency_s: float) -> dict[str, float]:
    """Clean run, then killed run + resume, of one command on fresh stores."""
    fill, command, table = (
        (_text_store, _evaluate, "responses")
        if kind == "evaluate"
        else (_visit_store, _judge, "judgments")
    )
    with tempfile.TemporaryDirectory() as tmp:
        clean, killed = Path(tmp) / "clean.db", Path(tmp) / "killed.db"
        fill(clean, items)
        fill(killed, items)
        with FakeOpenAIServer(latency_s=latency_s, concurrency=64) as server:
            clean_s = _timed(command(clean, server.base_url))
            total = server.stats.requests
            proc = subprocess.Popen(
                command(killed, server.base_url),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=_env(),
            )
            while _rows(killed, "cache") < total // 3 and proc.poll() is None:
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            leases = _rows(killed, "leases")
            before = server.stats.requests
            resume_s = _timed(command(killed, server.base_url))
            asked = server.stats.requests - before
        stored = _rows(killed, table)
    return {
        "clean": clean_s,
        "resume": resume_s,
        "leases": leases,
        "asked": asked,
        "total": total,
        "stored": stored,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    for kind in ("evaluate", "judge"):
        got = measure(kind, args.items, args.latency_ms / 1000)
        note = (
            f"{args.items} items, L={args.latency_ms:.0f} ms, C=8; the dead run left "
            f"{got['leases']:.0f} leases; the resume asked {got['asked']:.0f} of "
            f"{got['total']:.0f} calls and took {got['resume']:.1f} s (clean run "
            f"{got['clean']:.1f} s)"
        )
        print(f"{kind}: {note}")
        emit(
            NAME,
            f"{kind} resumed after kill -9, wall",
            got["resume"],
            "s",
            f"≤ clean run ({got['clean']:.1f} s) + {SLACK_S:.0f} s",
            got["resume"] <= got["clean"] + SLACK_S,
            note,
        )


if __name__ == "__main__":
    main()
