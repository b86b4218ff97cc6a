"""Every secret the process was configured with, and the one place that masks them.

Providers read their keys through :func:`read_secret`, which registers the value; the model and
image clients pass every output through :func:`redact_data` / :func:`redact_text` before it is
cached, stored or returned (error messages too), and the CLI masks log records as they are made
(:func:`install_log_redaction`). A server that echoes the key in a reply (a debugging proxy, a
misconfigured gateway) therefore never gets it onto disk, into a report or a log line.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, TypeVar

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "RedactingFilter",
    "install_log_redaction",
    "read_secret",
    "redact_data",
    "redact_text",
    "register_secret",
    "registered_secrets",
]

REDACTED = "***"
MIN_SECRET_LENGTH = 8
"""Shorter values are not masked: replacing a 3-letter "key" in every model answer would corrupt
answers, and no real API key or token is that short."""

T = TypeVar("T")

_lock = threading.Lock()
# Longest first, so a secret that contains another is masked whole.
_secrets: tuple[str, ...] = ()


def register_secret(value: str | None) -> None:
    """Mask ``value`` from now on wherever lvlmbench stores, logs or renders text."""
    global _secrets
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _secrets:
            _secrets = tuple(sorted({*_secrets, value}, key=len, reverse=True))


def read_secret(env_name: str) -> str:
    """The value of environment variable ``env_name`` ("" when unset), registered as a secret."""
    value = os.environ.get(env_name, "")
    register_secret(value)
    return value


def registered_secrets() -> tuple[str, ...]:
    """The secrets registered so far (for tests and diagnostics; never print them)."""
    return _secrets


def redact_text(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_data(value: T) -> T:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with secrets masked in every string,
    keys included. Returns the same object when nothing needed masking."""
    if not _secrets:
        return value
    return _redact_any(value)  # type: ignore[no-any-return]


def _redact_any(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        changed = False
        cleaned = {}
        for key, item in value.items():
            new_key, new_item = _redact_any(key), _redact_any(item)
            changed = changed or new_key is not key or new_item is not item
            cleaned[new_key] = new_item
        return cleaned if changed else value
    if isinstance(value, list | tuple):
        items = [_redact_any(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


class RedactingFilter(logging.Filter):
    """Masks registered secrets in a log record's message (arguments merged in first), and in
    the traceback text of an exception being logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


def _redact_record(record: logging.LogRecord) -> None:
    if not _secrets:
        return
    message = record.getMessage()
    cleaned = redact_text(message)
    if cleaned != message:
        record.msg, record.args = cleaned, None
    if record.exc_info and record.exc_info[1] is not None:
        # Formatted once here so that handlers reuse the masked text (logging caches exc_text).
        record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))


def install_log_redaction() -> None:
    """Mask registered secrets in every log record the process creates, whatever handler
    (console, file, pytest's capture) receives it. Idempotent."""
    factory = logging.getLogRecordFactory()
    if getattr(factory, "redacting", False):
        return

    def redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        _redact_record(record)
        return record

    redacting_factory.redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(redacting_factory)
