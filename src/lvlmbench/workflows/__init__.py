"""The use cases: what a user runs, one typed function each, under both the CLI and the API.

``cli`` parses arguments, calls one function here and prints; ``api`` exposes the same functions
with the same options and defaults, so the two front doors cannot drift. A use case takes a typed
options object, returns a typed result, reports progress through a callback and raises
:class:`InvalidOptions` for options it refuses. It sits above the report (a use case may write
one) and below the web app and the entry points.

A flow here reaches across the generated world (:mod:`lvlmbench.scenes`), the examinee loop
(:mod:`lvlmbench.runner`) and the judges (:mod:`lvlmbench.judging`), so it can live in none of
them: a judge that built benchmarks and ran examinees would make ``judging`` orchestrate and
depend on the world (``lvlmbench demo`` prints its tables; a script can call it directly).
Single-purpose runners stay with their concept: ``autobench.backends.generate_with`` (one
generation), ``runner.run_examinees`` (several examinees on one benchmark).
"""

from lvlmbench.workflows._errors import InvalidOptions
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
    "InvalidOptions",
    "build_open_benchmark",
    "open_benchmark_name",
    "run_open_ended",
]
