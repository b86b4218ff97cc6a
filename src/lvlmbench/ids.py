"""Content ids: the same content always gets the same id, on any machine."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "content_id"]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values serialise to equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_id(*parts: Any) -> str:
    """A 32-hex-digit id from the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()[:32]
