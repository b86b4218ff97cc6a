"""Flows that compose several packages into one run: build a benchmark, answer, judge, rate.

A flow here reaches across the generated world (:mod:`lvlmbench.scenes`), the examinee loop
(:mod:`lvlmbench.runner`) and the judges (:mod:`lvlmbench.judging`), so it can live in none of
them: a judge that built benchmarks and ran examinees would make ``judging`` orchestrate and
depend on the world. It sits above those packages and below the report, the CLI and the Python
API, which both call it (``lvlmbench demo`` prints its tables; a script can call it directly).
Single-purpose runners stay with their concept: ``autobench.backends.generate_with`` (one
generation), ``runner.run_examinees`` (several examinees on one benchmark).
"""

from lvlmbench.workflows.open_ended import (
    DEFAULT_LIMIT,
    OPEN_DEMO_MODELS,
    build_open_benchmark,
    open_benchmark_name,
    run_open_ended,
)

__all__ = [
    "DEFAULT_LIMIT",
    "OPEN_DEMO_MODELS",
    "build_open_benchmark",
    "open_benchmark_name",
    "run_open_ended",
]
