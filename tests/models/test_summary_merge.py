"""`RunSummary.merge`, the one way run summaries add up (rounds of a budgeted run one after the
other, --workers side by side): every field, hand-worked, with no list of names to forget."""

from __future__ import annotations

from dataclasses import dataclass, fields

import pytest

from lvlmbench.judging import JudgeRunSummary
from lvlmbench.models import RunSummary
from lvlmbench.runner import EvalSummary


def _every_field_set(summary: RunSummary) -> None:
    # A field added later must be given here, so its merge is checked too.
    assert all(getattr(summary, f.name) for f in fields(summary)), summary


def _rounds() -> tuple[EvalSummary, EvalSummary]:
    # Round 1 asked 20 samples (10 stored before); round 2 the 30-sample prefix holding them.
    first = EvalSummary(
        model="m", variant="default", benchmark="b", epochs=2, total=20, skipped=10,
        ok=5, unparseable=1, truncated_unread=1, refused=1, failed=2, truncated=1,
        wall_s=3.0, requests=11,
        cache_hits=1, input_tokens=1000, output_tokens=200, cost_usd=0.25,
        reasons={"HTTP 500": 2, "no letter": 1}, warnings=["images dropped"],
    )  # fmt: skip
    second = EvalSummary(
        model="m", variant="default", benchmark="b", epochs=2, total=30, skipped=16,
        ok=8, unparseable=2, truncated_unread=1, refused=2, failed=1, truncated=2,
        wall_s=4.5, requests=15,
        cache_hits=2, input_tokens=1500, output_tokens=300, cost_usd=0.5,
        reasons={"HTTP 500": 1, "timeout": 1}, warnings=["images dropped", "slow"],
    )  # fmt: skip
    return first, second


def test_rounds_add_up_every_field_and_count_earlier_work_once() -> None:
    first, second = _rounds()
    _every_field_set(first)
    _every_field_set(second)
    # 13 + 5 + 3 + 3 = 24 of the 30 planned were worked on by this run: 6 were done before.
    assert first.merge(second) == EvalSummary(
        model="m", variant="default", benchmark="b", epochs=2, total=30, skipped=6,
        ok=13, unparseable=3, truncated_unread=2, refused=3, failed=3, truncated=3,
        wall_s=7.5, requests=26,
        cache_hits=3, input_tokens=2500, output_tokens=500, cost_usd=0.75,
        reasons={"HTTP 500": 3, "no letter": 1, "timeout": 1},
        warnings=["images dropped", "slow"],
    )  # fmt: skip


def test_parallel_runs_take_the_slowest_time() -> None:
    first, second = _rounds()
    merged = EvalSummary.merged([first, second], parallel=True)
    assert (merged.wall_s, merged.total, merged.skipped, merged.ok) == (4.5, 30, 6, 13)


def test_judge_workers_count_missing_units_as_worked() -> None:
    a = JudgeRunSummary(
        judge="j", protocol="score", benchmark="b", total=16, skipped=8, ok=3, unparseable=1,
        truncated_unread=1, refused=1, failed=1, missing=1, wall_s=2.0, requests=6,
        cache_hits=1, input_tokens=600,
        output_tokens=60, cost_usd=0.25, reasons={"x": 1}, warnings=["w"],
    )  # fmt: skip
    b = JudgeRunSummary(
        judge="j", protocol="score", benchmark="b", total=16, skipped=9, ok=2, unparseable=1,
        truncated_unread=1, refused=1, failed=1, missing=1, wall_s=5.0, requests=5,
        cache_hits=2, input_tokens=500,
        output_tokens=50, cost_usd=0.5, reasons={"x": 1, "y": 1}, warnings=["w2"],
    )  # fmt: skip
    _every_field_set(a)
    _every_field_set(b)
    assert a.merge(b, parallel=True) == JudgeRunSummary(
        judge="j", protocol="score", benchmark="b", total=16, skipped=1, ok=5, unparseable=2,
        truncated_unread=2, refused=2, failed=2, missing=2, wall_s=5.0, requests=11, cache_hits=3,
        input_tokens=1100, output_tokens=110, cost_usd=0.75, reasons={"x": 2, "y": 1},
        warnings=["w", "w2"],
    )  # fmt: skip


def test_a_counter_added_later_is_summed_without_naming_it() -> None:
    @dataclass(kw_only=True)
    class WithRetries(EvalSummary):
        retries: int = 0

    runs = [WithRetries(model="m", variant="v", benchmark="b", retries=n) for n in (2, 3)]
    assert WithRetries.merged(runs).retries == 5


def test_no_price_stays_unknown_and_other_runs_are_refused() -> None:
    first, second = (EvalSummary(model="m", variant="v", benchmark="b") for _ in range(2))
    assert first.merge(second).cost_usd is None
    other = EvalSummary(model="other", variant="v", benchmark="b")
    with pytest.raises(ValueError, match="model 'm', 'other'"):
        first.merge(other)
    with pytest.raises(ValueError, match="epochs 1, 2"):
        first.merge(EvalSummary(model="m", variant="v", benchmark="b", epochs=2))
