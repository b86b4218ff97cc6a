"""The shared CPU worker pool: processes by default, a thread when switched off."""

from __future__ import annotations

import operator
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lvlmbench import _workers


def _pid_and_sum(a: int, b: int) -> tuple[int, int]:
    return os.getpid(), a + b


async def test_work_runs_in_another_process_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # Library functions only: a worker process started by this test alone cannot import the
    # test module (the tests folder is not a package on its path).
    monkeypatch.setenv("LVLMBENCH_WORKERS", "2")
    pid = await _workers.run_cpu(os.getpid)
    total = await _workers.run_cpu(operator.add, 2, 3)
    assert total == 5 and pid != os.getpid()


async def test_zero_workers_runs_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LVLMBENCH_WORKERS", "0")
    pid, total = await _workers.run_cpu(_pid_and_sum, 4, b=5)
    assert total == 9 and pid == os.getpid()


def test_a_bad_worker_count_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LVLMBENCH_WORKERS", "many")
    with pytest.raises(ValueError, match="LVLMBENCH_WORKERS='many'"):
        _workers.worker_count()


def test_a_flow_started_in_a_process_of_its_own_returns_its_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``start_in_process`` runs at once beside the caller (another process; a thread with
    workers off), its result or its error coming back through the future."""
    monkeypatch.setenv("LVLMBENCH_WORKERS", "2")
    beside = _workers.start_in_process(os.getpid)
    failing = _workers.start_in_process(operator.truediv, 1, 0)
    assert beside.result(timeout=60) != os.getpid()
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout=60)
    monkeypatch.setenv("LVLMBENCH_WORKERS", "0")
    pid, total = _workers.start_in_process(_pid_and_sum, 1, b=2).result(timeout=60)
    assert total == 3 and pid == os.getpid()


def test_a_program_whose_flow_used_workers_still_exits(tmp_path: Path) -> None:
    """A flow that ran work on workers of its own (the demo's experiments ask the pixels
    baseline) must not keep its process, and so the program, alive once it has returned:
    nothing else shuts that pool down there."""
    (tmp_path / "flowmod.py").write_text(
        textwrap.dedent(
            """
            import asyncio, os
            from lvlmbench import _workers

            def flow():
                return os.getpid(), asyncio.run(_workers.run_cpu(os.getpid))
            """
        )
    )
    script = "import flowmod; from lvlmbench import _workers; "
    script += "print(*_workers.start_in_process(flowmod.flow).result(timeout=60))"
    env = {**os.environ, "LVLMBENCH_WORKERS": "2", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=45
    )
    assert done.returncode == 0, done.stderr
    flow_pid, worker_pid = done.stdout.split()
    assert flow_pid != worker_pid  # the flow's work ran on a worker of its own
