"""`--workers N`: run N local copies of the current command on the same store.

There is no coordinator: each copy is an ordinary run that takes leases in the store (see
store/_leases.py), exactly as copies started by hand on other hosts would. This process only
starts them with its own command line (``--workers 1 --json``), waits, and reads their JSON
summaries so the command can print one combined summary.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Annotated, Any, TypeVar

import typer

from lvlmbench.cli._common import BadInput
from lvlmbench.models import RunSummary

__all__ = ["Workers", "combined", "run_workers"]

S = TypeVar("S", bound=RunSummary)

Workers = Annotated[
    int,
    typer.Option(
        "--workers",
        help="Start N local processes of this command on the same store; they split the work "
        "through leases in the store (so do copies started on other hosts) and nothing is "
        "paid twice.",
    ),
]


def _child_argv(argv: list[str]) -> list[str]:
    """The command line this process was started with (``lvlmbench ...`` arguments), its
    --workers and --json taken out and ``--workers 1 --json`` put in their place."""
    args: list[str] = []
    skip_value = False
    for arg in argv:
        if skip_value:
            skip_value = False
        elif arg == "--workers":
            skip_value = True
        elif not arg.startswith("--workers=") and arg != "--json":
            args.append(arg)
    if "--" in args:
        split = args.index("--")
        return [*args[:split], "--workers", "1", "--json", *args[split:]]
    return [*args, "--workers", "1", "--json"]


def run_workers(workers: int) -> list[dict[str, Any]]:
    """Run ``workers`` copies of the current command and return their JSON outputs.

    A copy that fails ends the command with its exit code and its last error line."""
    if workers < 1:
        raise BadInput(f"--workers must be at least 1, got {workers}")
    argv = [sys.executable, "-m", "lvlmbench", *_child_argv(sys.argv[1:])]
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(workers)
    ]
    outputs: list[dict[str, Any]] = []
    failures: list[tuple[int, str]] = []
    try:
        finished = [proc.communicate() for proc in procs]
    except BaseException:
        # Stopped (SIGTERM, Ctrl-C): so are the copies, each releasing its leases as it ends.
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            proc.wait()
        raise
    for proc, (out, err) in zip(procs, finished, strict=True):
        try:
            outputs.append(json.loads(out))
        except json.JSONDecodeError:
            lines = err.decode(errors="replace").strip().splitlines()
            failures.append((proc.returncode or 1, lines[-1] if lines else "no output"))
    if failures:
        code, line = failures[0]
        raise BadInput(f"{len(failures)} of {workers} workers failed (exit {code}): {line}")
    return outputs


def combined(runs: list[dict[str, Any]], summary: type[S]) -> S:
    """One summary from the workers' JSON summaries of the same run, merged by
    :meth:`~lvlmbench.models.RunSummary.merge` as parallel runs: counts of work done add up, the
    time is the slowest worker's, and units every worker found finished count as done before
    (work another worker did is not "already done")."""
    return summary.merged([summary(**run) for run in runs], parallel=True)
