"""Running N copies of one command as local processes on the same store (``--workers N``).

There is no coordinator: each copy is an ordinary run that takes leases in the store (see
store/_leases.py), exactly as copies started by hand on other hosts would. This process only
starts them, waits, and reads the JSON each prints, so the use case can merge their summaries
(:meth:`lvlmbench.models.RunSummary.merge`, as parallel runs).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from collections.abc import Mapping
from typing import Any, TypeVar

from lvlmbench.models import RunSummary
from lvlmbench.workflows._errors import InvalidOptions

__all__ = ["merged_runs", "run_copies"]

S = TypeVar("S", bound=RunSummary)


def run_copies(argv: list[str], count: int, env: Mapping[str, str] | None = None) -> list[Any]:
    """Run ``count`` copies of ``argv`` (each printing one JSON value) and return their outputs.

    ``env``: variables set for the copies on top of this process's (a store URL with a
    password travels there, not on a command line every user of the host can read). A copy
    that fails ends the run with its exit code and its last error line; when this process is
    stopped (SIGTERM, Ctrl-C), so are the copies, each releasing its leases as it ends."""
    if count < 1:
        raise InvalidOptions(f"--workers must be at least 1, got {count}")
    child_env = {**os.environ, **(env or {})}
    procs = [_started(argv, child_env) for _ in range(count)]
    try:
        finished = [proc.communicate() for proc in procs]
    except BaseException:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            proc.wait()
        raise
    outputs: list[Any] = []
    failures: list[tuple[int, str]] = []
    for proc, (out, err) in zip(procs, finished, strict=True):
        try:
            outputs.append(json.loads(out))
        except json.JSONDecodeError:
            lines = err.decode(errors="replace").strip().splitlines()
            failures.append((proc.returncode or 1, lines[-1] if lines else "no output"))
    if failures:
        code, line = failures[0]
        raise InvalidOptions(f"{len(failures)} of {count} workers failed (exit {code}): {line}")
    return outputs


def _started(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError as exc:
        if exc.errno != errno.E2BIG:
            raise
        # The specs travel on the copies' command line; a huge system prompt written into
        # them can pass the system's limit on one argument.
        longest = max(len(arg) for arg in argv)
        raise InvalidOptions(
            f"--workers: a copy's command line is too long for this system (an argument of "
            f"{longest} characters: a long --system-prompt?); run without --workers, or start "
            "copies by hand (they share the work through the store)"
        ) from None


def merged_runs(runs: list[dict[str, Any]], summary: type[S]) -> S:
    """One summary from the copies' JSON summaries of the same run, merged as parallel runs:
    counts of work done add up, the time is the slowest copy's, and units every copy found
    finished count as done before (work another copy did is not "already done")."""
    return summary.merged([summary(**run) for run in runs], parallel=True)
