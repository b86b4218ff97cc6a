"""What one run of model calls did, counted one way for every kind of run."""

from __future__ import annotations

from dataclasses import dataclass, field

from lvlmbench.models._policy import CallStats
from lvlmbench.types import Status

__all__ = ["REASON_CHARS", "RunSummary"]

REASON_CHARS = 120
"""Characters of a failure reason that key :attr:`RunSummary.reasons` (longer ones vary in
ids and numbers only)."""


@dataclass(kw_only=True)
class RunSummary:
    """The counters every run shares: the examinee runner's :class:`EvalSummary`, the judges'
    :class:`JudgeRunSummary` extend it with what is theirs (who ran, protocol extras).

    A unit is what the run asks once: an item's sample, a judge call.
    """

    total: int = 0
    """Units planned (including those done before)."""
    skipped: int = 0
    """Units finished in an earlier run (not asked again)."""
    ok: int = 0
    unparseable: int = 0
    """Replies with nothing readable (cut by the token limit included): stored, never scored."""
    refused: int = 0
    failed: int = 0
    """Calls that failed (errors): stored as error, asked again on the next run."""
    wall_s: float = 0.0
    requests: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    """Tokens of the requests this run paid for (cache hits and stored answers count none)."""
    output_tokens: int = 0
    cost_usd: float | None = None
    """What those requests cost at the model's ``price`` (None: the model has no price)."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Failure reasons (first :data:`REASON_CHARS` characters) and how often each occurred."""
    warnings: list[str] = field(default_factory=list)
    """What the run found wrong without failing a unit (a server that drops images), each once."""

    def tally(self, status: Status, reason: str | None) -> None:
        """Count one finished unit by its status; a unit not ok counts its reason too."""
        if status is Status.OK:
            self.ok += 1
            return
        if status in (Status.UNPARSEABLE, Status.TRUNCATED):
            self.unparseable += 1
        elif status is Status.REFUSED:
            self.refused += 1
        else:
            self.failed += 1
        key = (reason or status.value)[:REASON_CHARS]
        self.reasons[key] = self.reasons.get(key, 0) + 1

    def count_calls(self, stats: CallStats, since: CallStats, priced: bool) -> None:
        """Take the requests, cache hits, tokens and cost a client's counters gained since the
        snapshot ``since`` (``priced``: the client has a price, so the cost is known)."""
        self.requests = stats.requests - since.requests
        self.cache_hits = stats.cache_hits - since.cache_hits
        self.input_tokens = stats.input_tokens - since.input_tokens
        self.output_tokens = stats.output_tokens - since.output_tokens
        self.cost_usd = stats.cost_usd - since.cost_usd if priced else None

    def add_work(self, other: RunSummary) -> None:
        """Add what ``other`` (a later run of the same units: a round of a budgeted run) did:
        its outcomes, calls, time and reasons. ``total`` and ``skipped`` are the caller's to
        set, since a later run counts the earlier one's units as skipped."""
        self.ok += other.ok
        self.unparseable += other.unparseable
        self.refused += other.refused
        self.failed += other.failed
        self.requests += other.requests
        self.cache_hits += other.cache_hits
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd
        self.wall_s += other.wall_s
        for reason, count in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + count
        self.warnings += [w for w in other.warnings if w not in self.warnings]
