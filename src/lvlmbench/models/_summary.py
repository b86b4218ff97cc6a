"""What one run of model calls did, counted one way for every kind of run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import Field, dataclass, field, fields, replace
from enum import Enum
from functools import reduce
from typing import Any, Self

from lvlmbench.models._policy import CallStats
from lvlmbench.types import Status

__all__ = ["OUTCOME", "REASON_CHARS", "SAME_RUN", "RunSummary"]

REASON_CHARS = 120
"""Characters of a failure reason that key :attr:`RunSummary.reasons` (longer ones vary in
ids and numbers only)."""


class _Merge(Enum):
    """How :meth:`RunSummary.merge` combines a field that is not simply added up."""

    SAME_RUN = "same run"
    PLANNED = "planned"
    DONE_BEFORE = "done before"
    OUTCOME = "outcome"
    ELAPSED = "elapsed"


_RULE = "merge"
SAME_RUN = {_RULE: _Merge.SAME_RUN}
"""Field metadata: the field names the run (as a text field does), so two summaries merged must
agree on it (an ``epochs`` count)."""
OUTCOME = {_RULE: _Merge.OUTCOME}
"""Field metadata: the field counts units finished with one outcome (added up; what no outcome
counts of the planned units was done before)."""


@dataclass(kw_only=True)
class RunSummary:
    """The counters every run shares: the examinee runner's :class:`EvalSummary`, the judges'
    :class:`JudgeRunSummary` extend it with what is theirs (who ran, protocol extras).

    A unit is what the run asks once: an item's sample, a judge call.
    """

    total: int = field(default=0, metadata={_RULE: _Merge.PLANNED})
    """Units planned (including those done before)."""
    skipped: int = field(default=0, metadata={_RULE: _Merge.DONE_BEFORE})
    """Units finished in an earlier run (not asked again)."""
    ok: int = field(default=0, metadata=OUTCOME)
    unparseable: int = field(default=0, metadata=OUTCOME)
    """Replies with nothing readable: stored, never scored."""
    truncated_unread: int = field(default=0, metadata=OUTCOME)
    """Replies cut by the token limit before anything readable (status truncated): counted
    apart from unparseable, as the accuracy tables count them (the limit lost the answer,
    not the model)."""
    refused: int = field(default=0, metadata=OUTCOME)
    failed: int = field(default=0, metadata=OUTCOME)
    """Calls that failed (errors): stored as error, asked again on the next run."""
    wall_s: float = field(default=0.0, metadata={_RULE: _Merge.ELAPSED})
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
        if status is Status.UNPARSEABLE:
            self.unparseable += 1
        elif status is Status.TRUNCATED:
            self.truncated_unread += 1
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

    def merge(self, other: Self, *, parallel: bool = False) -> Self:
        """This run and ``other`` (of the same units) as one, field by field and without a list
        of names, so a counter added later is summed too: counts, tokens, cost (None while
        neither has a price) and reasons add up, warnings are kept once each, text fields (the
        model, the benchmark) must agree. The units planned are the larger plan (a later round's
        prefix holds every earlier one; parallel workers plan the same units); what no outcome
        counts of them was done before this run, so work one part did is not "already done" in
        the whole. Time adds up for runs one after the other (rounds), and is the slowest one's
        for ``parallel`` runs (workers)."""
        values: dict[str, Any] = {
            f.name: _merged(f, getattr(self, f.name), getattr(other, f.name), parallel)
            for f in fields(self)
        }
        merged = replace(self, **values)
        rules = [(f.name, _rule(f)) for f in fields(merged)]
        worked = sum(getattr(merged, name) for name, rule in rules if rule is _Merge.OUTCOME)
        planned = max(getattr(merged, name) for name, rule in rules if rule is _Merge.PLANNED)
        for name, rule in rules:
            if rule is _Merge.DONE_BEFORE:
                setattr(merged, name, max(0, planned - worked))
        return merged

    @classmethod
    def merged(cls, runs: Sequence[Self], *, parallel: bool = False) -> Self:
        """``runs`` (at least one) merged by :meth:`merge`."""
        return reduce(lambda a, b: a.merge(b, parallel=parallel), runs)


def _rule(f: Field[object]) -> _Merge | None:
    rule = f.metadata.get(_RULE)
    return rule if isinstance(rule, _Merge) else None


def _merged(f: Field[object], a: object, b: object, parallel: bool) -> object:
    """One field of two summaries merged (see :meth:`RunSummary.merge`)."""
    rule = _rule(f)
    if rule is _Merge.SAME_RUN or isinstance(a, str):
        if a != b:
            raise ValueError(f"cannot merge the summaries of different runs: {f.name} {a!r}, {b!r}")
        return a
    if rule is _Merge.DONE_BEFORE:
        return 0  # derived from the merged plan and outcomes
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, dict) and isinstance(b, dict):
        counts = dict(a)
        for key, count in b.items():
            counts[key] = counts.get(key, 0) + count
        return counts
    if isinstance(a, list) and isinstance(b, list):
        return list(dict.fromkeys([*a, *b]))
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        if rule is _Merge.PLANNED or (rule is _Merge.ELAPSED and parallel):
            return max(a, b)
        return a + b
    raise TypeError(f"RunSummary.merge: no rule for {f.name} of type {type(a).__name__}")
