"""Side by side with a peer: the same items through lvlmbench and lmms-eval, same server, same run.

Both evaluate N four-option items with one small image each (bench_orchestration's
``make_store`` items; bench/peer_task/ holds the matching lmms-eval task) against one local
OpenAI-compatible server (tests/fake_openai_server.py, latency L, concurrency cap C), one after
the other, with C requests in flight: lvlmbench through its runner and openai provider,
lmms-eval 0.7.3 through its OpenAI-compatible chat model (``--model openai``,
``num_concurrent=C``). It prints both wall times, their ratio and the ideal N·L/C.

lmms-eval runs in its own venv (it needs torch, transformers, datasets...): ``make peer-venv``
builds one at .venv/peer; ``--peer-python`` or ``$LVLMBENCH_PEER_PYTHON`` names another. Without
one the script says why it skipped and exits 0. Everything runs offline: the task reads a local
``datasets.save_to_disk`` folder and the hub is switched off (``HF_HUB_OFFLINE=1``).

VLMEvalKit is not compared: upstream publishes no PyPI package (``pip download vlmeval`` finds
none); only repackagings exist (``ms-vlmeval``, ``nvidia-vlmeval``) and its datasets are TSV
files that its loader fetches from the project's servers.

Run: ``python bench/bench_peer.py [--items N] [--latency-ms L] [--concurrency C]
[--peer-python PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench_orchestration import evaluate, make_store, server_process
from figures import ENV, emit

ROOT = Path(__file__).resolve().parents[1]
TASK_DIR = ROOT / "bench" / "peer_task"
DEFAULT_PEER = ROOT / ".venv" / "peer" / "bin" / "python"
PEER_VERSION = "0.7.3"
RATIO_TARGET = "≥ 1.00"
VLMEVALKIT = (
    "VLMEvalKit not run: upstream publishes no PyPI package (`pip download vlmeval`: no "
    "versions); only repackagings exist (ms-vlmeval, nvidia-vlmeval), and its datasets are TSV "
    "files its loader downloads from the project's servers"
)


class PeerUnavailable(Exception):
    """The peer could not be run; the message says exactly why."""


def peer_python(given: str | None) -> Path:
    path = Path(given or os.environ.get("LVLMBENCH_PEER_PYTHON") or DEFAULT_PEER)
    if not path.exists():
        raise PeerUnavailable(
            f"peer venv missing ({path} not found): run `make peer-venv` (installs lmms-eval "
            f"{PEER_VERSION} with torch 2.13.0 CPU and ~135 pinned packages into .venv/peer; "
            "about 2.4 GB and 4 minutes) or pass --peer-python"
        )
    probe = subprocess.run(
        [str(path), "-c", "import importlib.metadata as m; print(m.version('lmms_eval'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    version = probe.stdout.strip()
    if probe.returncode != 0:
        raise PeerUnavailable(f"{path} has no lmms-eval: {probe.stderr.strip().splitlines()[-1]}")
    if version != PEER_VERSION:
        raise PeerUnavailable(f"{path} has lmms-eval {version}, the task was verified on 0.7.3")
    return path


def offline_env() -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env.update(
        {"TRANSFORMERS_OFFLINE": "1", "WANDB_MODE": "disabled", "TOKENIZERS_PARALLELISM": "0"}
    )
    env.pop(ENV, None)  # the peer writes no figures of its own
    return env


def run_peer(
    python: Path, tmp: Path, url: str, n: int, concurrency: int
) -> tuple[dict[str, float], float, int]:
    """(lmms-eval's own timings, whole-process wall seconds, requests it answered)."""
    env = offline_env()
    made = subprocess.run(
        [str(python), str(TASK_DIR / "make_dataset.py"), "peer_data", str(n)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        raise PeerUnavailable(f"building the peer dataset failed: {_last_line(made.stderr)}")
    timings = tmp / "timings.json"
    model_args = f"model=fake,base_url={url},api_key=bench,num_concurrent={concurrency}"
    command = [
        str(python),
        str(TASK_DIR / "run_lmms_eval.py"),
        str(timings),
        "--",
        "--model",
        "openai",
        "--model_args",
        model_args,
        "--tasks",
        "lvlmbench_peer_mc",
        "--include_path",
        str(TASK_DIR),
        "--batch_size",
        "1",
        "--output_path",
        str(tmp / "peer-out"),
        "--verbosity",
        "WARNING",
    ]
    log = tmp / "lmms-eval.log"
    started = time.perf_counter()
    with log.open("w") as handle:
        done = subprocess.run(command, cwd=tmp, env=env, stdout=handle, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - started
    if done.returncode != 0 or not timings.exists():
        text = log.read_text(errors="replace")
        raise PeerUnavailable(
            f"lmms-eval exited {done.returncode}: {_last_line(text)} (log tail below)\n"
            + "\n".join(text.splitlines()[-15:])
        )
    answered = 0
    for results in (tmp / "peer-out").rglob("*_results.json"):
        usage = json.loads(results.read_text()).get("usage", {})
        answered += int(usage.get("total", {}).get("n_api_calls", 0))
    return json.loads(timings.read_text()), wall, answered


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def skip(reason: str, setting: str) -> None:
    print(f"peer skipped: {reason}")
    print(VLMEVALKIT)
    emit(
        "peer",
        f"lmms-eval {PEER_VERSION} / lvlmbench wall time ({setting})",
        None,
        "×",
        RATIO_TARGET,
        None,
        f"skipped: {reason}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--peer-python", help="Python of a venv with lmms-eval 0.7.3")
    args = parser.parse_args()
    n, latency, concurrency = args.items, args.latency_ms / 1000, args.concurrency
    setting = f"N={n:,}, L={args.latency_ms:.0f} ms, C={concurrency}"
    try:
        python = peer_python(args.peer_python)
    except PeerUnavailable as error:
        skip(str(error), setting)
        return
    ideal = n * latency / concurrency
    with tempfile.TemporaryDirectory(prefix="lvlmbench-peer-") as name:
        tmp = Path(name)
        with server_process(latency, concurrency) as url:
            store = make_store(tmp / "s.db", n)
            ours, _, requests = asyncio.run(
                evaluate(store, f"openai/fake?base_url={url}", concurrency)
            )
            store.close()
            try:
                timings, process, answered = run_peer(python, tmp, url, n, concurrency)
            except PeerUnavailable as error:
                skip(str(error), setting)
                return
    theirs = timings["evaluate_s"]
    ratio = theirs / ours
    print(f"peer benchmark: {setting}, same fake server, ideal N·L/C = {ideal:.2f} s")
    rows = [
        ("lvlmbench run_examinee", ours, f"{requests:,} requests"),
        (f"lmms-eval {PEER_VERSION} simple_evaluate", theirs, f"{answered:,} requests"),
        ("  of which generate_until", timings["generate_s"], "requests only"),
        ("  whole lmms-eval process", process, f"imports {timings['import_s']:.1f} s"),
    ]
    print(f"{'measure':<34} {'wall s':>8} {'x ideal':>8}  note")
    for label, seconds, note in rows:
        print(f"{label:<34} {seconds:>8.2f} {seconds / ideal:>8.2f}  {note}")
    print(f"lmms-eval / lvlmbench wall time: {ratio:.2f}x")
    print(VLMEVALKIT)
    note = (
        f"lvlmbench {ours:.2f} s ({requests:,} requests) vs lmms-eval {theirs:.2f} s "
        f"({answered:,} requests; its generate_until {timings['generate_s']:.2f} s, whole process "
        f"{process:.1f} s); ideal {ideal:.2f} s; load average "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg())
        + f". {VLMEVALKIT}"
    )
    emit("peer", f"lvlmbench wall time ({setting})", ours, "s", "—", None, f"ideal {ideal:.2f} s")
    emit(
        "peer",
        f"lmms-eval {PEER_VERSION} wall time ({setting})",
        theirs,
        "s",
        "—",
        None,
        "evaluator.simple_evaluate: dataset load, requests, scoring",
    )
    emit(
        "peer",
        f"lmms-eval {PEER_VERSION} requests alone ({setting})",
        timings["generate_s"],
        "s",
        "—",
        None,
        f"its chat model's generate_until; whole process {process:.1f} s with imports",
    )
    emit(
        "peer",
        f"lmms-eval {PEER_VERSION} / lvlmbench wall time ({setting})",
        ratio,
        "×",
        RATIO_TARGET,
        ratio >= 1.0,
        note,
    )


if __name__ == "__main__":
    main()
