"""Ratings and statistics as pure functions (no I/O, no model calls)."""

from lvlmbench.ratings.intervals import Interval, wilson_interval

__all__ = ["Interval", "wilson_interval"]
