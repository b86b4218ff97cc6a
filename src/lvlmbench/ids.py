"""Content ids: the same content always gets the same id, on any machine."""

from __future__ import annotations

import hashlib
import json
import json.encoder
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "BENCHMARK_NAME_RULE",
    "canonical_json",
    "check_benchmark_name",
    "compact_json_writer",
    "content_id",
    "is_text_digest",
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
