"""Side by side with peers: the same items through lvlmbench, lmms-eval and inspect_ai, same server.

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

inspect_ai 0.3.285 runs in a venv of its own too (``make inspect-venv``: .venv/inspect;
``--inspect-python`` or ``$LVLMBENCH_INSPECT_PYTHON``), through its OpenAI-compatible chat
provider (``openai-api/fake/fake``, base URL from ``FAKE_BASE_URL``) with ``max_connections`` =
``max_samples`` = C, the same items as in-memory Samples, ``generate()`` and a regex scorer
(bench/peer_task/run_inspect.py). Its time is ``eval()``'s wall time; its log is written to
a temporary directory as it would be for a user. Each peer is skipped alone when missing.

VLMEvalKit is not compared: upstream publishes no PyPI package (``pip download vlmeval`` finds
none); only repackagings exist (``ms-vlmeval``, ``nvidia-vlmeval``) and its datasets are TSV
files that its loader fetches from the project's servers.

Run: ``python bench/bench_peer.py [--items N] [--latency-ms L] [--concurrency C]
[--peer-python PATH] [--inspect-python PATH]``.
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

from bare_client import bare_floor, chat_bodies
from bench_orchestration import evaluate, make_store, server_process
from figures import ENV, emit

ROOT = Path(__file__).resolve().parents[1]
TASK_DIR = ROOT / "bench" / "peer_task"
DEFAULT_PEER = ROOT / ".venv" / "peer" / "bin" / "python"
DEFAULT_INSPECT = ROOT / ".venv" / "inspect" / "bin" / "python"
PEER_VERSION = "0.7.3"
INSPECT_VERSION = "0.3.285"
RATIO_TARGET = "≥ 2.00"
VLMEVALKIT = (
    "VLMEvalKit not run: upstream publishes no PyPI package (`pip download vlmeval`: no "
    "versions); only repackagings exist (ms-vlmeval, nvidia-vlmeval), and its datasets are TSV "
    "files its loader downloads from the project's servers"
)


class PeerUnavailable(Exception):
    """The peer could not be run; the message says exactly why."""


def _verified_python(path: Path, package: str, version: str, missing: str) -> Path:
    """``path``, once it exists and has ``package`` at exactly ``version`` installed."""
    if not path.exists():
        raise PeerUnavailable(missing)
    probe = subprocess.run(
        [str(path), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        check=False,
    )
    found = probe.stdout.strip()
    if probe.returncode != 0:
        raise PeerUnavailable(f"{path} has no {package}: {_last_line(probe.stderr)}")
    if found != version:
        raise PeerUnavailable(f"{path} has {package} {found}, the task was verified on {version}")
    return path


def peer_python(given: str | None) -> Path:
    path = Path(given or os.environ.get("LVLMBENCH_PEER_PYTHON") or DEFAULT_PEER)
    missing = (
        f"peer venv missing ({path} not found): run `make peer-venv` (installs lmms-eval "
        f"{PEER_VERSION} with torch 2.13.0 CPU and ~135 pinned packages into .venv/peer; "
        "about 2.4 GB and 4 minutes) or pass --peer-python"
    )
    return _verified_python(path, "lmms_eval", PEER_VERSION, missing)


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


def inspect_python(given: str | None) -> Path:
    path = Path(given or os.environ.get("LVLMBENCH_INSPECT_PYTHON") or DEFAULT_INSPECT)
    missing = (
        f"inspect_ai venv missing ({path} not found): run `make inspect-venv` (installs "
        f"inspect-ai {INSPECT_VERSION} into .venv/inspect; about 30 s) or pass --inspect-python"
    )
    return _verified_python(path, "inspect_ai", INSPECT_VERSION, missing)


def run_inspect(python: Path, tmp: Path, url: str, n: int, concurrency: int) -> dict[str, float]:
    """inspect_ai's own timings: import_s, evaluate_s (its ``eval()``), whole_s, completed."""
    timings = tmp / "inspect.json"
    command = [str(python), str(TASK_DIR / "run_inspect.py"), str(timings), url, str(n)]
    command += [str(concurrency), str(tmp / "inspect-logs")]
    env = {**offline_env(), "INSPECT_LOG_DIR": str(tmp / "inspect-logs")}
    log = tmp / "inspect.log"
    started = time.perf_counter()
    with log.open("w") as handle:
        done = subprocess.run(command, cwd=tmp, env=env, stdout=handle, stderr=subprocess.STDOUT)
    whole = time.perf_counter() - started
    if done.returncode != 0 or not timings.exists():
        text = log.read_text(errors="replace")
        raise PeerUnavailable(f"inspect_ai exited {done.returncode}: {_last_line(text)}")
    got = json.loads(timings.read_text())
    if got["status"] != "success" or got["completed"] != n:
        raise PeerUnavailable(
            f"inspect_ai finished {got['completed']}/{n} samples ({got['status']}: {got['error']})"
        )
    return {**got, "whole_s": whole}


def skip(peer: str, reason: str, setting: str) -> None:
    print(f"{peer} skipped: {reason}")
    emit(
        "peer",
        f"{peer} / lvlmbench wall time ({setting})",
        None,
        "×",
        RATIO_TARGET,
        None,
        f"skipped: {reason}",
    )


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _lmms(python: Path, tmp: Path, url: str, ours: float, args: argparse.Namespace) -> None:
    n, concurrency, setting = args.items, args.concurrency, args.setting
    peer = f"lmms-eval {PEER_VERSION}"
    timings, process, answered = run_peer(python, tmp, url, n, concurrency)
    theirs = timings["evaluate_s"]
    ratio = theirs / ours
    print(
        f"{peer + ' simple_evaluate':<36} {theirs:>8.2f} {theirs / args.ideal:>8.2f}  "
        f"{answered:,} requests"
    )
    print(f"{'  of which generate_until':<36} {timings['generate_s']:>8.2f}")
    print(f"{'  whole lmms-eval process':<36} {process:>8.2f}  imports {timings['import_s']:.1f} s")
    print(f"{peer} / lvlmbench wall time: {ratio:.2f}x")
    emit(
        "peer",
        f"{peer} wall time ({setting})",
        theirs,
        "s",
        "—",
        None,
        "evaluator.simple_evaluate: dataset load, requests, scoring",
    )
    emit(
        "peer",
        f"{peer} requests alone ({setting})",
        timings["generate_s"],
        "s",
        "—",
        None,
        f"its chat model's generate_until; whole process {process:.1f} s with imports",
    )
    note = (
        f"lvlmbench {ours:.2f} s vs {peer} {theirs:.2f} s ({answered:,} requests; its "
        f"generate_until {timings['generate_s']:.2f} s, whole process {process:.1f} s); ideal "
        f"{args.ideal:.2f} s; {_load()}. {VLMEVALKIT}"
    )
    emit(
        "peer",
        f"{peer} / lvlmbench wall time ({setting})",
        ratio,
        "×",
        RATIO_TARGET,
        ratio >= 2.0,
        note,
    )


def _inspect(python: Path, tmp: Path, url: str, ours: float, args: argparse.Namespace) -> None:
    setting, peer = args.setting, f"inspect_ai {INSPECT_VERSION}"
    got = run_inspect(python, tmp, url, args.items, args.concurrency)
    theirs = got["evaluate_s"]
    ratio = theirs / ours
    print(
        f"{peer + ' eval()':<36} {theirs:>8.2f} {theirs / args.ideal:>8.2f}  "
        f"{got['completed']:,} samples"
    )
    print(
        f"{'  whole inspect_ai process':<36} {got['whole_s']:>8.2f}  "
        f"imports {got['import_s']:.1f} s; eval() CPU {got['cpu_s']:.1f} s"
    )
    print(f"{peer} / lvlmbench wall time: {ratio:.2f}x")
    emit(
        "peer",
        f"{peer} wall time ({setting})",
        theirs,
        "s",
        "—",
        None,
        f"eval(): samples, requests, scoring, log; whole process {got['whole_s']:.1f} s",
    )
    note = (
        f"lvlmbench {ours:.2f} s vs {peer} {theirs:.2f} s ({got['completed']:,} samples, "
        f"whole process {got['whole_s']:.1f} s, eval() CPU {got['cpu_s']:.1f} s); "
        f"ideal {args.ideal:.2f} s; {_load()}"
    )
    emit(
        "peer",
        f"{peer} / lvlmbench wall time ({setting})",
        ratio,
        "×",
        RATIO_TARGET,
        ratio >= 2.0,
        note,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--peer-python", help="Python of a venv with lmms-eval 0.7.3")
    parser.add_argument("--inspect-python", help="Python of a venv with inspect-ai 0.3.285")
    parser.add_argument(
        "--ours-only",
        action="store_true",
        help="Measure lvlmbench against the ideal even where no peer is installed "
        "(a machine lent for measuring, say)",
    )
    args = parser.parse_args()
    n, latency, concurrency = args.items, args.latency_ms / 1000, args.concurrency
    args.setting = f"N={n:,}, L={args.latency_ms:.0f} ms, C={concurrency}"
    args.ideal = n * latency / concurrency
    peers: list[tuple[str, Path, object]] = []
    for peer, find, run in (
        (f"lmms-eval {PEER_VERSION}", lambda: peer_python(args.peer_python), _lmms),
        (f"inspect_ai {INSPECT_VERSION}", lambda: inspect_python(args.inspect_python), _inspect),
    ):
        try:
            peers.append((peer, find(), run))
        except PeerUnavailable as error:
            skip(peer, str(error), args.setting)
    print(VLMEVALKIT)
    if not peers and not args.ours_only:
        return
    with tempfile.TemporaryDirectory(prefix="lvlmbench-peer-") as name:
        tmp = Path(name)
        with server_process(latency, concurrency) as url:
            store = make_store(tmp / "s.db", n)
            ours, _, requests = asyncio.run(
                evaluate(store, f"openai/fake?base_url={url}", concurrency)
            )
            store.close()
            print(
                f"peer benchmark: {args.setting}, same fake server, ideal N·L/C = "
                f"{args.ideal:.2f} s"
            )
            print(f"{'measure':<36} {'wall s':>8} {'x ideal':>8}  note")
            print(
                f"{'lvlmbench run_examinee':<36} {ours:>8.2f} {ours / args.ideal:>8.2f}  "
                f"{requests:,} requests"
            )
            emit(
                "peer",
                f"lvlmbench wall time ({args.setting})",
                ours,
                "s",
                "—",
                None,
                f"ideal {args.ideal:.2f} s; {requests:,} requests",
            )
            for peer, python, run in peers:
                try:
                    run(python, tmp, url, ours, args)  # type: ignore[operator]
                except PeerUnavailable as error:
                    skip(peer, str(error), args.setting)
        with server_process(latency, concurrency) as url:  # fresh, as each measure gets
            floor = asyncio.run(bare_floor(url, chat_bodies(n), concurrency))
        print(
            f"{'bare aiohttp client (floor)':<36} {floor:>8.2f} {floor / args.ideal:>8.2f}  "
            f"lvlmbench / floor {ours / floor:.3f}"
        )
        emit(
            "peer",
            f"lvlmbench wall time / bare-client floor ({args.setting})",
            ours / floor,
            "×",
            "—",
            None,
            f"floor {floor:.2f} s ({floor / args.ideal:.3f}× ideal); lvlmbench {ours:.2f} s",
        )


if __name__ == "__main__":
    main()
