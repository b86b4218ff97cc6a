"""Shared CLI plumbing: consoles, the --store option, turning known errors into exit code 2."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console

from lvlmbench.models import ProviderError, RegistryError, RunAborted
from lvlmbench.store import Store, StoreError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILURES",
    "StoreOption",
    "console",
    "err_console",
    "fail",
    "friendly_errors",
    "open_store",
    "print_json",
]

P = ParamSpec("P")
R = TypeVar("R")

EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2

console = Console()
err_console = Console(stderr=True)
log = logging.getLogger("lvlmbench")

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        envvar="LVLMBENCH_STORE",
        help="Store URL or SQLite file (default ./lvlmbench.db).",
    ),
]


class BadInput(Exception):
    """A user error whose message already says what is wrong and how to fix it."""


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print one error line to stderr and return the Exit to raise."""
    err_console.print(
        f"[bold red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True
    )
    return typer.Exit(code)


def friendly_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the errors users cause (bad spec, unreachable server, bad store, bad file) into one
    clear line and exit code 2 instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (RegistryError, ProviderError, RunAborted, StoreError, BadInput) as exc:
            raise fail(str(exc)) from None
        except ValidationError as exc:
            raise fail(f"invalid input: {exc.errors()[0]['msg']}") from None
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            raise fail(f"cannot read{where}: {exc.strerror or exc}") from None

    return wrapper


def open_store(url: str | None) -> Store:
    """Open the store named by --store (StoreError becomes exit 2 via friendly_errors)."""
    return Store.open(url)


def print_json(value: Any) -> None:
    """Machine-readable output for --json."""
    console.print_json(json.dumps(value, default=str))
