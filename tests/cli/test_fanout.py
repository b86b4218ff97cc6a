"""`--workers N` plumbing: the command line each worker gets, and how their summaries add up."""

from __future__ import annotations

from lvlmbench.cli._fanout import _child_argv, combined
from lvlmbench.runner import EvalSummary


def test_each_worker_runs_the_same_command_once_with_json() -> None:
    argv = ["evaluate", "b", "-m", "x", "--workers", "4", "--json", "--store", "postgresql://h/db"]
    assert _child_argv(argv) == [
        *["evaluate", "b", "-m", "x", "--store", "postgresql://h/db"],
        *["--workers", "1", "--json"],
    ]
    assert _child_argv(["judge", "score", "--workers=3", "--", "-odd-name"]) == [
        *["judge", "score", "--workers", "1", "--json", "--", "-odd-name"],
    ]


def test_worker_summaries_add_up_and_count_only_earlier_work_as_skipped() -> None:
    # 10 units, 2 answered before this run; each worker saw the other's work as "done".
    first = {"model": "m", "total": 10, "skipped": 6, "ok": 3, "failed": 1, "requests": 4}
    second = {"model": "m", "total": 10, "skipped": 6, "ok": 4, "failed": 0, "requests": 4}
    first |= {"wall_s": 2.0, "reasons": {"HTTP 500": 1}, "unparseable": 0}
    second |= {"wall_s": 3.5, "reasons": {}, "unparseable": 0}
    for run in (first, second):  # as each worker's --json prints it
        run |= {"variant": "default", "benchmark": "b"}
    merged = vars(combined([first, second], EvalSummary))
    assert (merged["ok"], merged["failed"], merged["requests"]) == (7, 1, 8)
    assert (merged["skipped"], merged["total"], merged["wall_s"]) == (2, 10, 3.5)
    assert merged["reasons"] == {"HTTP 500": 1} and merged["model"] == "m"
