"""No process outlives a killed `lvlmbench generate`: its worker pool, the forkserver and the
resource tracker all end with it, whether it is killed with SIGKILL or SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

WORKERS = 2


def _parents() -> dict[int, int]:
    """pid -> parent pid of every live (non-zombie) process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended while we looked
            continue
        # The command name is in parentheses and may contain spaces: split after the last ')'.
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if state not in ("Z", "X"):
            found[int(entry.name)] = int(ppid)
    return found


def _descendants(root: int) -> set[int]:
    parents = _parents()
    family, frontier = set(), {root}
    while frontier:
        children = {pid for pid, ppid in parents.items() if ppid in frontier}
        frontier = children - family
        family |= children
    return family


def _alive(pids: set[int]) -> set[int]:
    return pids & set(_parents())


def _generate(tmp_path: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "lvlmbench", "generate", "spatial understanding"]
    cmd += ["--per-aspect", "20", "--store", str(tmp_path / "gen.db"), "--json"]
    env = {**os.environ, "LVLMBENCH_WORKERS": str(WORKERS)}
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_no_process_outlives_a_killed_generate(tmp_path: Path, sig: signal.Signals) -> None:
    proc = _generate(tmp_path)
    family: set[int] = set()
    try:
        # Forkserver, resource tracker and the workers: wait until the pool is really working.
        deadline = time.monotonic() + 60
        while len(family) < WORKERS + 2:
            assert proc.poll() is None, "generate ended before its workers started"
            assert time.monotonic() < deadline, f"workers never started: {family}"
            time.sleep(0.1)
            family = _descendants(proc.pid)
        time.sleep(0.5)  # let the workers take jobs: a busy worker must die too
        family |= _descendants(proc.pid)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _alive(family) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(family), f"left running after {sig.name}: {sorted(_alive(family))}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _alive(family):  # never leave strays behind when the test fails
            os.kill(pid, signal.SIGKILL)
