"""`lvlmbench demo` end to end: wall, CPU and per-phase seconds (target: under 60 s wall).

The demo runs as a subprocess in a temporary directory, its output streaming through. CPU is
user+sys of the whole process tree, render workers included: they are children of the
multiprocessing forkserver, not of the demo, so ``time -v`` (and ``RUSAGE_CHILDREN``) never
count them; this script reads ``/proc`` for every descendant a few times a second instead.
Phases come from when the demo's own lines arrive: generation ends with the last benchmark's
summary table, evaluation with the first accuracy table; the experiments and the open-ended
flow (processes of their own beside the evaluation) print their seconds and how long the demo
then waited for them; the rest (leaderboard, report) is what is left. "Cores busy" is a phase's
tree CPU over its wall: on 2 cores, 2.0 leaves nothing to overlap.
CPU seconds are the figure a shared machine does not spoil; wall needs a quiet one.
Run: ``.venv/bin/python bench/bench_demo.py [--per-aspect 10] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from figures import emit

TARGET_S = 60.0
_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, user+sys seconds) of one process, or None when it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS


class TreeCpu:
    """Sums the CPU of ``root`` and every descendant, sampled until :meth:`stop`."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, float] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.25):
            self.sample()

    def sample(self) -> None:
        stats = {int(p): s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(p))}
        tree = {self.root}
        grew = True
        while grew:  # parents before children is not guaranteed: repeat until stable
            grew = False
            for pid, (parent, _) in stats.items():
                if parent in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
        for pid in tree & stats.keys():
            self.seen[pid] = max(self.seen.get(pid, 0.0), stats[pid][1])

    def now(self) -> float:
        """CPU seconds of the tree so far."""
        self.sample()
        return sum(self.seen.values())

    def stop(self) -> float:
        self.sample()  # the last figures before the demo is reaped
        self._done.set()
        self._thread.join()
        return sum(self.seen.values())


def run_demo(out: Path, per_aspect: int) -> dict[str, float]:
    """Run the demo; its phases, wall and tree CPU in seconds."""
    command = [sys.executable, "-m", "lvlmbench", "demo", "--out", str(out)]
    command += ["--per-aspect", str(per_aspect)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1)
    cpu = TreeCpu(process.pid)
    assert process.stdout is not None
    marks: dict[str, float] = {}
    cpu_at: dict[str, float] = {}
    seconds: dict[str, float] = {}
    beside: dict[str, float] = {}
    for line in process.stdout:
        print(line, end="", flush=True)
        now = time.perf_counter() - started
        if re.match(r"│ time\s", line):
            marks["generated"] = now  # the last one wins: all benchmarks are built
            cpu_at["generated"] = cpu.now()
        if "accuracy % by capability" in line and "evaluated" not in marks:
            marks["evaluated"] = now
            cpu_at["evaluated"] = cpu.now()
        for flow in ("experiments", "open-ended"):
            if found := re.search(rf"^{flow} .* in ([0-9.]+)s, .*waited ([0-9.]+)s", line.strip()):
                beside[flow], seconds[f"{flow} wait"] = float(found.group(1)), float(found.group(2))
    # The tree is sampled while the demo's pid still exists: reap it only afterwards.
    while process.poll() is None:
        cpu.sample()
        time.sleep(0.05)
    wall = time.perf_counter() - started
    tree_cpu = cpu.stop()
    if process.returncode != 0:
        raise SystemExit(f"demo exited with {process.returncode}")
    generation = marks.get("generated", float("nan"))
    evaluation = marks.get("evaluated", float("nan")) - generation
    rest = wall - generation - evaluation - sum(seconds.values())
    return {
        "wall": wall,
        "cpu": tree_cpu,
        "generation": generation,
        "evaluation": evaluation,
        "experiments (beside)": beside.get("experiments", float("nan")),
        "experiments wait": seconds.get("experiments wait", float("nan")),
        "open-ended (beside)": beside.get("open-ended", float("nan")),
        "open-ended wait": seconds.get("open-ended wait", float("nan")),
        "start, leaderboard, report": rest,
        # How busy the cores were: a phase at 2.0 on 2 cores has nothing left to overlap.
        "cores busy, generation": cpu_at.get("generated", float("nan")) / generation,
        "cores busy, evaluation": (
            cpu_at.get("evaluated", float("nan")) - cpu_at.get("generated", float("nan"))
        )
        / evaluation,
        "cores busy, the rest": (tree_cpu - cpu_at.get("evaluated", float("nan")))
        / (wall - generation - evaluation),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-aspect", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="Write the demo here and keep it.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as scratch:
        out = args.keep or Path(scratch) / "demo"
        figures = run_demo(out, args.per_aspect)
    load = os.getloadavg()[0]
    print(f"\ndemo (--per-aspect {args.per_aspect}), load {load:.2f} on {os.cpu_count()} CPUs")
    for name, value in figures.items():
        unit = "" if name.startswith("cores busy") else " s"
        print(f"  {name:<28} {value:7.1f}{unit}")
    wall_ok = figures["wall"] < TARGET_S
    emit("demo", "wall", figures["wall"], "s", f"< {TARGET_S:.0f}", wall_ok, f"load {load:.2f}")
    emit("demo", "CPU (tree, user+sys)", figures["cpu"], "s", "", None, "render workers included")
    for name in ("generation", "evaluation", "experiments wait", "open-ended wait"):
        emit("demo", f"{name} phase", figures[name], "s", "", None)


if __name__ == "__main__":
    main()
