"""Requests counted per piece of work, across clients: what one generated unit cost.

A client's :class:`~lvlmbench.models.CallStats` counts its own requests, but several units
share one examiner client and one image client at once, so those counters cannot say which unit
paid for what. :func:`metered` opens a meter for the current task (a context variable: tasks
started inside it count into it too, other tasks do not); every request the one call path sends
(retries included, cache hits and shared in-flight calls not) is added to every open meter of
that context, innermost and enclosing alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["RequestMeter", "count_request", "metered"]


@dataclass
class RequestMeter:
    """Requests sent inside one :func:`metered` block."""

    requests: int = 0
    parent: RequestMeter | None = None


_OPEN: ContextVar[RequestMeter | None] = ContextVar("lvlmbench_request_meter", default=None)


@contextmanager
def metered() -> Iterator[RequestMeter]:
    """Count the requests sent by the current task (and tasks it starts) until the block ends."""
    meter = RequestMeter(parent=_OPEN.get())
    token = _OPEN.set(meter)
    try:
        yield meter
    finally:
        _OPEN.reset(token)


def count_request() -> None:
    """Add one sent request to the open meters (called by the one call path)."""
    meter = _OPEN.get()
    while meter is not None:
        meter.requests += 1
        meter = meter.parent
