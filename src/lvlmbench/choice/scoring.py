"""Scoring a choice item: whether the extracted answer is the item's key."""

from __future__ import annotations

from lvlmbench.choice._evidence import Extraction
from lvlmbench.types import BenchmarkItem, Status

__all__ = ["score_choice"]


def score_choice(item: BenchmarkItem, extraction: Extraction) -> bool | None:
    """Whether the extracted answer is the key; None when nothing could be extracted."""
    if item.kind == "open":
        raise ValueError(f"item {item.id} is open-ended; it is judged, not scored by key")
    if extraction.status is not Status.OK or extraction.answer is None or item.answer is None:
        return None
    return extraction.answer.strip().lower() == item.answer.strip().lower()
