"""Tolerant extraction of one JSON object from model text (fences, prose around it)."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["extract_json"]

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TOO_DEEP = "the reply's JSON nests too deeply to read"


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``.

    Tries the whole text, then fenced code blocks, then each ``{`` / ``[`` position with a raw
    decoder. Raises ValueError (saying what was seen) when there is none: callers record that as
    unparseable rather than guessing.
    """
    stripped = text.strip()
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
        except RecursionError:  # every inner bracket nests nearly as deep: stop here
            raise ValueError(_TOO_DEEP) from None
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, index)
            except json.JSONDecodeError:
                continue
            except RecursionError:
                raise ValueError(_TOO_DEEP) from None
            if isinstance(value, dict | list):
                return value
    preview = stripped[:80].replace("\n", " ")
    raise ValueError(f"no JSON object found in the reply (starts: {preview!r})")
