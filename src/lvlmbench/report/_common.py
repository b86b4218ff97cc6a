"""Small shared values of the report's collectors."""

from __future__ import annotations

__all__ = ["LEVELS", "pct"]

LEVELS = ("easy", "medium", "hard")
"""AutoBench-V's difficulty levels, in the order charts show them."""


def pct(value: float) -> float:
    """A fraction as a percentage rounded to one decimal, as every table shows it."""
    return round(100 * value, 1)
