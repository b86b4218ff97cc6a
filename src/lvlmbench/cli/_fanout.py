"""`--workers N`: run N local copies of the current command on the same store.

There is no coordinator: each copy is an ordinary run that takes leases in the store (see
store/_leases.py), exactly as copies started by hand on other hosts would. This process only
starts them with its own command line (``--workers 1 --json``), waits, and reads their JSON
summaries so the command can print one combined summary.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from lvlmbench.workflows import merged_runs as combined
from lvlmbench.workflows import run_copies

__all__ = ["Workers", "combined", "run_workers"]

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


def run_workers(workers: int) -> list[Any]:
    """Run ``workers`` copies of the current command and return their JSON outputs."""
    argv = [sys.executable, "-m", "lvlmbench", *_child_argv(sys.argv[1:])]
    return run_copies(argv, workers)
