"""Content ids: the same content always gets the same id, on any machine; and the JSON they
are built from, written canonically and read from users with bounded nesting."""

from __future__ import annotations

import hashlib
import json
import json.encoder
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "BENCHMARK_NAME_RULE",
    "MAX_JSON_DEPTH",
    "JSONTooDeep",
    "canonical_json",
    "check_benchmark_name",
    "check_json_depth",
    "compact_json_writer",
    "content_id",
    "is_text_digest",
    "load_json",
    "text_digest",
]

BENCHMARK_NAME_RULE = (
    "1-128 characters: letters (any script), digits and . _ - @ + :, "
    "starting with a letter or digit"
)
# Names are path segments of the web app (/b/NAME/...), file-name parts and CLI arguments: no
# '/', '?', '#', '%' or spaces (a segment the router cannot reach or a link cannot spell), no
# leading '.' (".." is a path step) or '-' (read as an option).
_BENCHMARK_NAME = re.compile(r"[^\W_][\w.@+:-]{0,127}")


def compact_json_writer(
    *, sort_keys: bool, allow_nan: bool, default: Callable[[Any], Any] | None = None
) -> Callable[[Any], str]:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False, ...)`` with these options,
    writing the same text, with its encoder built once: ``json.dumps`` builds a new one (and
    its C encoder) on every call, which cost as much as writing a small request or cache key.
    Structures are not checked for cycles (the values written are plain JSON-like data)."""
    encoder = json.JSONEncoder(
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=sort_keys,
        allow_nan=allow_nan,
        default=default,
    )
    make = getattr(json.encoder, "c_make_encoder", None)  # untyped in typeshed
    if make is None:  # no C accelerator: the encoder as json.dumps would use it
        return encoder.encode
    write = make(
        None,
        encoder.default,
        json.encoder.encode_basestring,
        None,
        ":",
        ",",
        sort_keys,
        False,
        allow_nan,
    )

    def dumps(value: Any) -> str:
        return "".join(write(value, 0))

    return dumps


_CANONICAL = compact_json_writer(sort_keys=True, allow_nan=True, default=str)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values serialise to equal strings."""
    return _CANONICAL(value)


def content_id(*parts: Any) -> str:
    """A 32-hex-digit id from the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()[:32]


def text_digest(text: str) -> str:
    """``sha256:`` and the first 16 hex digits of ``text``'s SHA-256: how a system prompt is
    named in a model's identity, and the key it is stored under."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def is_text_digest(value: str) -> bool:
    """Whether ``value`` has the form :func:`text_digest` gives (not a prompt)."""
    return re.fullmatch(r"sha256:[0-9a-f]{16}", value) is not None


def check_benchmark_name(name: str) -> str:
    """``name`` if it may name a new benchmark; ValueError saying what is allowed otherwise.
    Every command that creates a benchmark calls this before it writes anything."""
    if not _BENCHMARK_NAME.fullmatch(name):
        raise ValueError(f"benchmark name {name[:120]!r} is not allowed: {BENCHMARK_NAME_RULE}")
    return name


MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in JSON from users' files and uploads. Real
layouts nest a few levels (a VLMEvalKit list cell 1, FastChat's conversations 3, an exported
item's meta 3-4); Python's decoder fails with a RecursionError traceback near 1,000 levels, so
a limit far below that and far above any real file tells a corrupt or hostile file at once."""

# A JSON string (skipped whole, escapes included) or one bracket: what nesting depth counts.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_OPENERS = frozenset("[{")


class JSONTooDeep(ValueError):
    """JSON nested deeper than the limit; the message says the limit and why it exists."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"JSON nested deeper than {limit} levels (real files nest a few levels; is the "
            "file corrupt or hostile?)"
        )
        self.limit = limit


def check_json_depth(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """:class:`JSONTooDeep` when the arrays and objects of the JSON ``text`` nest deeper than
    ``max_depth`` (strings skipped); linear, and nearly free for text with few brackets."""
    # Fast path: a text with no more opening brackets than the limit cannot nest deeper.
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        char = text[token.start()]
        if char in _OPENERS:
            depth += 1
            if depth > max_depth:
                raise JSONTooDeep(max_depth)
        elif char != '"':
            depth -= 1


def load_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for JSON that comes from users (a file's line or cell, an upload):
    :class:`JSONTooDeep` (a ValueError) instead of a RecursionError when arrays and objects
    nest deeper than ``max_depth``; json.JSONDecodeError (also a ValueError) as usual."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    check_json_depth(text, max_depth)
    try:
        return json.loads(text)
    except RecursionError:  # the stack was already deep: still the same answer, never a trace
        raise JSONTooDeep(max_depth) from None
