"""Content ids: the same content always gets the same id, on any machine."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["BENCHMARK_NAME_RULE", "canonical_json", "check_benchmark_name", "content_id"]

BENCHMARK_NAME_RULE = (
    "1-128 characters: letters (any script), digits and . _ - @ + :, "
    "starting with a letter or digit"
)
# Names are path segments of the web app (/b/NAME/...), file-name parts and CLI arguments: no
# '/', '?', '#', '%' or spaces (a segment the router cannot reach or a link cannot spell), no
# leading '.' (".." is a path step) or '-' (read as an option).
_BENCHMARK_NAME = re.compile(r"[^\W_][\w.@+:-]{0,127}")


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values serialise to equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_id(*parts: Any) -> str:
    """A 32-hex-digit id from the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()[:32]


def check_benchmark_name(name: str) -> str:
    """``name`` if it may name a new benchmark; ValueError saying what is allowed otherwise.
    Every command that creates a benchmark calls this before it writes anything."""
    if not _BENCHMARK_NAME.fullmatch(name):
        raise ValueError(f"benchmark name {name[:120]!r} is not allowed: {BENCHMARK_NAME_RULE}")
    return name
