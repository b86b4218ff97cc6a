"""`--workers N` copies as the use cases start them: each copy's JSON comes back, a failing copy
ends the run with its last error line, and a command line the system cannot pass is refused with
what to do instead (it used to end in a traceback)."""

from __future__ import annotations

import sys

import pytest

from lvlmbench.workflows import InvalidOptions, run_copies


def test_each_copy_s_json_comes_back_with_the_variables_given() -> None:
    argv = [sys.executable, "-c", "import json, os; print(json.dumps(os.environ['PROBE']))"]
    assert run_copies(argv, 3, {"PROBE": "store-url"}) == ["store-url"] * 3


def test_a_failing_copy_ends_the_run_with_its_last_error_line() -> None:
    argv = [sys.executable, "-c", "import sys; sys.exit('Error: no such benchmark')"]
    with pytest.raises(InvalidOptions, match=r"2 of 2 workers failed \(exit 1\): Error: no such"):
        run_copies(argv, 2)


def test_a_command_line_too_long_for_the_system_is_refused_plainly() -> None:
    argv = [sys.executable, "-c", "print(1)", "x" * 300_000]  # over Linux's 128 KiB per argument
    with pytest.raises(InvalidOptions, match="300000 characters: a long --system-prompt"):
        run_copies(argv, 2)
