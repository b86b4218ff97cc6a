"""Run lmms-eval's own CLI with timers around its evaluation and its request phase.

Usage, with the peer venv's Python: ``run_lmms_eval.py TIMINGS_JSON -- LMMS_EVAL_ARGS...``.
Nothing of lmms-eval is changed: ``evaluator.simple_evaluate`` (load the task and dataset, build
the requests, send them, score) and the OpenAI-compatible chat model's ``generate_until`` (the
requests alone) are wrapped with ``time.perf_counter`` and the CLI entry point is called as
``lmms-eval`` would call it. The timings are written as JSON to TIMINGS_JSON.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any


def _timed(owner: Any, name: str, spans: list[float]) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spans.append(time.perf_counter() - started)

    setattr(owner, name, wrapper)


def main() -> None:
    started = time.perf_counter()
    out, rest = sys.argv[1], sys.argv[2:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    from lmms_eval import evaluator
    from lmms_eval.__main__ import cli_evaluate
    from lmms_eval.models.chat import openai as chat_openai

    imported = time.perf_counter() - started
    evaluate_spans: list[float] = []
    generate_spans: list[float] = []
    _timed(evaluator, "simple_evaluate", evaluate_spans)
    _timed(chat_openai.OpenAICompatible, "generate_until", generate_spans)
    sys.argv = ["lmms-eval", *rest]
    cli_evaluate()
    timings = {
        "import_s": imported,
        "evaluate_s": sum(evaluate_spans),
        "generate_s": sum(generate_spans),
        "process_s": time.perf_counter() - started,
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(timings, handle)


if __name__ == "__main__":
    main()
