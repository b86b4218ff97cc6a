"""`--workers N`: how the copies' summaries add up into one run's."""

from __future__ import annotations

from lvlmbench.runner import EvalSummary
from lvlmbench.workflows import merged_runs


def test_worker_summaries_add_up_and_count_only_earlier_work_as_skipped() -> None:
    # 10 units, 2 answered before this run; each worker saw the other's work as "done".
    first = {"model": "m", "total": 10, "skipped": 6, "ok": 3, "failed": 1, "requests": 4}
    second = {"model": "m", "total": 10, "skipped": 6, "ok": 4, "failed": 0, "requests": 4}
    first |= {"wall_s": 2.0, "reasons": {"HTTP 500": 1}, "unparseable": 0}
    second |= {"wall_s": 3.5, "reasons": {}, "unparseable": 0}
    for run in (first, second):  # as each worker's --json prints it
        run |= {"variant": "default", "benchmark": "b"}
    merged = vars(merged_runs([first, second], EvalSummary))
    assert (merged["ok"], merged["failed"], merged["requests"]) == (7, 1, 8)
    assert (merged["skipped"], merged["total"], merged["wall_s"]) == (2, 10, 3.5)
    assert merged["reasons"] == {"HTTP 500": 1} and merged["model"] == "m"
