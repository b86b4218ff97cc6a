"""The Python API for notebooks and scripts: generate, evaluate, judge, rate, compare, report, ls.

Each function takes plain arguments and returns typed results from the library (the same
functions the ``lvlmbench`` commands call): nothing is printed, every model call goes through
the cached :class:`~lvlmbench.models.ModelClient`, and every step resumes, so running a cell
again asks nothing twice. ``store`` is a :class:`~lvlmbench.store.Store` (used as is, left
open) or a SQLite path / database URL (opened and closed by the call; ``None`` is
``$LVLMBENCH_STORE`` or ``./lvlmbench.db``). Bad arguments raise ValueError (or the library's
RegistryError / StoreError) naming what is wrong, before anything is written.

The functions are synchronous; inside a running event loop (Jupyter) they run their work on a
private loop in a worker thread, so ``api.evaluate(...)`` works in a notebook cell as is.

>>> from lvlmbench import api
>>> made = api.generate("spatial understanding", store="my.db", n=2, m=2, per_aspect=1)
>>> result = api.evaluate(made.benchmark, ["baseline/random"], store="my.db")
>>> result.overall[0].accuracy  # doctest: +SKIP
"""

from __future__ import annotations

from lvlmbench.api._files import export, import_file, report
from lvlmbench.api._judges import BuiltinJudgeProtocol, agreement, judge, rate
from lvlmbench.api._runs import (
    EvaluationResult,
    GenerationResult,
    evaluate,
    evaluate_many,
    generate,
    generate_many,
)
from lvlmbench.store import ListedBenchmark, list_stored
from lvlmbench.workflows import (
    AgreementResult,
    EvalSet,
    EvaluateOptions,
    EvaluateSetResult,
    ExportResult,
    GenerateOptions,
    ProgressCallback,
    StoreLike,
    opened_store,
    read_eval_set,
)
from lvlmbench.workflows.compare import CompareResult
from lvlmbench.workflows.compare import compare_models as compare

__all__ = [
    "AgreementResult",
    "BuiltinJudgeProtocol",
    "CompareResult",
    "EvalSet",
    "EvaluateOptions",
    "EvaluateSetResult",
    "EvaluationResult",
    "ExportResult",
    "GenerateOptions",
    "GenerationResult",
    "ProgressCallback",
    "StoreLike",
    "agreement",
    "compare",
    "evaluate",
    "evaluate_many",
    "export",
    "generate",
    "generate_many",
    "import_file",
    "judge",
    "ls",
    "rate",
    "read_eval_set",
    "report",
]


def ls(store: StoreLike = None) -> list[ListedBenchmark]:
    """Every benchmark in the store: kind, item count, the models run on it, its judges."""
    with opened_store(store) as opened:
        return list_stored(opened)
