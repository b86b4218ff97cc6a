"""Shared CLI plumbing: consoles, the --store option, turning known errors into exit code 2."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from lvlmbench.models import (
    ModelClient,
    ProviderError,
    RegistryError,
    RetryEvent,
    RunAborted,
    RunSummary,
    mask_url_credentials,
    redact_text,
)
from lvlmbench.store import Store, StoreError, discard_if_empty, sqlite_store_path
from lvlmbench.workflows import InvalidOptions, usd

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILURES",
    "BadInput",
    "StoreOption",
    "check_concurrency",
    "console",
    "err_console",
    "fail",
    "friendly_errors",
    "open_store",
    "paid_text",
    "print_json",
    "print_reasons",
    "print_warnings",
    "progress_bar",
    "usd",
]

P = ParamSpec("P")
R = TypeVar("R")

EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2

# Piped or captured output (CI logs, `make demo > log`) has no terminal width to follow; rich
# would fall back to 80 columns and truncate model names in every table.
console = Console(width=None if sys.stdout.isatty() else 140)
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


# The use cases raise InvalidOptions for options they refuse; the CLI raises the same class for
# its own argument checks, so both end in one error line and exit 2.
BadInput = InvalidOptions


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print one error line to stderr and return the Exit to raise."""
    # Escaped: messages carry install hints like 'lvlmbench[hf]' that rich would eat as markup.
    err_console.print(
        f"[bold red]error:[/] {escape(redact_text(mask_url_credentials(message)))}",
        markup=True,
        highlight=False,
        soft_wrap=True,
    )
    return typer.Exit(code)


def friendly_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the errors users cause (bad spec, unreachable server, bad store, bad file) into one
    clear line and exit code 2 instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        opened_before = len(_created_stores)
        try:
            return func(*args, **kwargs)
        except (RegistryError, ProviderError, RunAborted, StoreError, BadInput) as exc:
            raise fail(str(exc)) from None
        except ValidationError as exc:
            raise fail(f"invalid input: {exc.errors()[0]['msg']}") from None
        except IsADirectoryError as exc:
            raise fail(f"{exc.filename} is a directory, expected a file") from None
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            raise fail(f"cannot read{where}: {exc.strerror or exc}") from None
        finally:
            _remove_empty_created(opened_before)

    return wrapper


# Stores this process created (the file did not exist before ``open_store``): a command that
# fails, or only reads, must not leave an empty lvlmbench.db behind for the next command to
# mistake for a real one.
_created_stores: list[tuple[Store, Path]] = []


def _remove_empty_created(keep: int) -> None:
    """Delete the stores created since entry ``keep`` that hold nothing: a store that existed
    before is never touched, and one holding anything the command wrote stays."""
    while len(_created_stores) > keep:
        discard_if_empty(*_created_stores.pop())


def check_concurrency(value: int, option: str = "--concurrency") -> None:
    """Reject a concurrency below 1 before anything is opened or written: zero workers would
    wait forever for a slot, and a negative count means nothing."""
    if value < 1:
        raise BadInput(f"{option} must be at least 1, got {value}")


def open_store(url: str | None, writable: bool = True) -> Store:
    """Open the store named by --store (StoreError becomes exit 2 via friendly_errors).

    A command that writes (``writable``) refuses a read-only store here, before it does any
    work, rather than at its first write after paid calls.
    """
    path = sqlite_store_path(url)
    is_new = path is not None and not path.exists()
    opened = Store.open(url)
    if is_new and path is not None:
        _created_stores.append((opened, path))
    if writable and opened.read_only:
        opened.close()
        opened.require_writable()
    return opened


def print_json(value: Any) -> None:
    """Machine-readable output for --json."""
    console.print_json(redact_text(json.dumps(value, default=str)))


@contextlib.contextmanager
def progress_bar(
    label: str, enabled: bool = True, client: ModelClient | None = None
) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar with counts, rate and ETA; yields a ``(done, total)`` hook.

    Disabled (a no-op hook) for --json output and when stderr is not a terminal in CI logs.
    With ``client`` and a terminal, its retries show on the line ("retry 2/6 in 4 s: HTTP 503"),
    so a slow run says why it is slow instead of sitting silent.
    """
    if not enabled:
        yield lambda done, total: None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("[yellow]{task.fields[retry]}"),
    )
    with Progress(*columns, console=err_console, transient=False) as progress:
        # A label that quotes a spec shows no password written into its base_url.
        task = progress.add_task(redact_text(mask_url_credentials(label)), total=None, retry="")
        status = _RetryStatus()
        watched = client if client is not None and err_console.is_terminal else None
        previous = watched.on_retry if watched is not None else None

        def on_retry(event: RetryEvent) -> None:
            progress.update(task, retry=status.saw(event))
            if previous is not None:
                previous(event)

        def hook(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total, retry=status.text())

        if watched is not None:
            watched.on_retry = on_retry
        try:
            yield hook
        finally:
            if watched is not None:
                watched.on_retry = previous


class _RetryStatus:
    """The progress line's retry column: the latest retry while it is pending, and a count."""

    def __init__(self) -> None:
        self.retries = 0
        self._last: RetryEvent | None = None
        self._until = 0.0

    def saw(self, event: RetryEvent) -> str:
        self.retries += 1
        self._last = event
        self._until = time.monotonic() + event.wait_s + 1.0
        return self.text()

    def text(self) -> str:
        if self.retries == 0:
            return ""
        count = f"{self.retries} {'retry' if self.retries == 1 else 'retries'}"
        last = self._last
        if last is None or time.monotonic() > self._until:
            return count
        reason = redact_text(last.reason)
        return f"retry {last.attempt}/{last.max_retries} in {last.wait_s:.0f} s: {reason} ({count})"


def outcomes_text(summary: RunSummary, truncated: int | None = None) -> str:
    """``5 ok, 1 unparseable, 0 refused, 0 failed``: how a run's units ended, counted as the
    accuracy tables count them: a reply the token limit cut before anything readable is never
    an unparseable one. With ``truncated`` (the replies cut at all, read or not) it ends like
    the tables' column, ``3 truncated (2 unread)``; without, the unread ones show where any."""
    text = (
        f"{summary.ok} ok, {summary.unparseable} unparseable, {summary.refused} refused, "
        f"{summary.failed} failed"
    )
    if truncated is not None:
        return f"{text}, {truncated} truncated ({summary.truncated_unread} unread)"
    if summary.truncated_unread:
        text += f", {summary.truncated_unread} cut by the token limit unread"
    return text


def paid_text(summary: RunSummary) -> str:
    """``, $0.0123 paid (2,000 in + 300 out tokens)`` for a run of a priced model: what its
    requests cost (stored and cached answers cost nothing); empty when it has no price."""
    if summary.cost_usd is None:
        return ""
    tokens = f"{summary.input_tokens:,} in + {summary.output_tokens:,} out tokens"
    return f", {usd(summary.cost_usd)} paid ({tokens})"


def print_reasons(reasons: dict[str, int], title: str) -> None:
    """Failures grouped by reason, most frequent first, on stderr (nothing when none)."""
    if not reasons:
        return
    err_console.print(f"{title}: {sum(reasons.values())} by reason", highlight=False)
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        err_console.print(f"  {count:6d}  {redact_text(reason)}", markup=False, highlight=False)


def print_warnings(warnings: list[str]) -> None:
    """A run's warnings (what it found wrong without failing a unit), one line each, on stderr."""
    for warning in warnings:
        err_console.print(f"[yellow]warning:[/] {escape(redact_text(warning))}", highlight=False)


class _RateColumn(ProgressColumn):
    """Items per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("  -  /s" if speed is None else f"{speed:7.1f}/s")
