"""Requests counted per piece of work, across clients: what one generated unit cost.

A client's :class:`~lvlmbench.models.CallStats` counts its own requests, but several units
share one examiner client and one image client at once, so those counters cannot say which unit
paid for what. :func:`metered` opens a meter for the current task (a context variable: tasks
started inside it count into it too, other tasks do not); every request the one call path sends
(retries included, cache hits and shared in-flight calls not) is added to every open meter of
that context, innermost and enclosing alike, and so is what each answered request used: the
tokens of a chat reply, one image for a rendered picture. That is what a money cap prices a
unit at (the meter holds no price: a unit's tokens are stored and costed at the run's prices).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["RequestMeter", "count_request", "count_usage", "metered"]


@dataclass
class RequestMeter:
    """Requests sent inside one :func:`metered` block, and what the answered ones used."""

    requests: int = 0
    input_tokens: int = 0
    """Input tokens of the chat replies received (a failed request reports none)."""
    output_tokens: int = 0
    images: int = 0
    """Images rendered (a refused or failed render is none)."""
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


def count_usage(input_tokens: int, output_tokens: int, images: int) -> None:
    """Add what one sent request's answer used to the open meters (called by the one call
    path once the answer is in)."""
    meter = _OPEN.get()
    while meter is not None:
        meter.input_tokens += input_tokens
        meter.output_tokens += output_tokens
        meter.images += images
        meter = meter.parent
