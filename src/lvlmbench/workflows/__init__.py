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

from lvlmbench.workflows._copies import merged_runs, run_copies
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._evaluate_options import parse_groupings
from lvlmbench.workflows._examinees import (
    check_specs,
    check_stored_names,
    could_be_imported,
    imported_models,
    subset_for,
)
from lvlmbench.workflows._generate_rounds import GenerateBars, Generated
from lvlmbench.workflows._generation_money import generation_prices, money_text
from lvlmbench.workflows._judge_options import JudgeOptions, Resolve, check_judge_options
from lvlmbench.workflows._money import (
    Meter,
    check_budget_usd,
    meter_for,
    money_line,
    require_prices,
    usd,
)
from lvlmbench.workflows._rounds import (
    STRATA,
    Asked,
    BudgetedRun,
    Decided,
    check_round_options,
    decide_in_rounds,
    decision_json,
    make_rule,
    parse_until,
    run_budgeted,
)
from lvlmbench.workflows._stores import StoreLike, opened_store
from lvlmbench.workflows._sync import run_sync
from lvlmbench.workflows.compare import CompareOptions, CompareResult, Comparison, compare
from lvlmbench.workflows.evaluate import (
    EvaluateOptions,
    EvaluateResult,
    ProgressCallback,
    check_options,
    evaluate,
    progress_for,
)
from lvlmbench.workflows.evaluate_set import (
    EvalSet,
    EvaluateSetResult,
    Headline,
    SetRow,
    evaluate_many,
    read_eval_set,
)
from lvlmbench.workflows.exporting import (
    EXPORT_FORMATS,
    ExportOptions,
    ExportResult,
    check_export_options,
    export_benchmark,
)
from lvlmbench.workflows.generate import (
    GenerateOptions,
    GenerateResult,
    PlannedGeneration,
    check_generate_options,
    generate,
    generate_several,
    parse_levels,
    parse_zeta,
    plan_several,
)
from lvlmbench.workflows.importing import (
    ImportOptions,
    ImportResult,
    fetch_standard,
    import_file,
    import_format,
)
from lvlmbench.workflows.judge import Bars, JudgeResult, Load, NothingToJudge, judge_benchmark
from lvlmbench.workflows.open_ended import (
    DEFAULT_LIMIT,
    OPEN_DEMO_MODELS,
    build_open_benchmark,
    open_benchmark_name,
    run_open_ended,
)
from lvlmbench.workflows.ratings import (
    AgreementOptions,
    AgreementResult,
    RateOptions,
    agreement,
    combine_rule,
    rate,
)
from lvlmbench.workflows.reporting import ReportOptions, check_reportable, make_report

__all__ = [
    "DEFAULT_LIMIT",
    "EXPORT_FORMATS",
    "OPEN_DEMO_MODELS",
    "STRATA",
    "AgreementOptions",
    "AgreementResult",
    "Asked",
    "Bars",
    "BudgetedRun",
    "CompareOptions",
    "CompareResult",
    "Comparison",
    "Decided",
    "EvalSet",
    "EvaluateOptions",
    "EvaluateResult",
    "EvaluateSetResult",
    "ExportOptions",
    "ExportResult",
    "GenerateBars",
    "GenerateOptions",
    "GenerateResult",
    "Generated",
    "Headline",
    "ImportOptions",
    "ImportResult",
    "InvalidOptions",
    "JudgeOptions",
    "JudgeResult",
    "Load",
    "Meter",
    "NothingToJudge",
    "PlannedGeneration",
    "ProgressCallback",
    "RateOptions",
    "ReportOptions",
    "Resolve",
    "SetRow",
    "StoreLike",
    "agreement",
    "build_open_benchmark",
    "check_budget_usd",
    "check_export_options",
    "check_generate_options",
    "check_judge_options",
    "check_options",
    "check_reportable",
    "check_round_options",
    "check_specs",
    "check_stored_names",
    "combine_rule",
    "compare",
    "could_be_imported",
    "decide_in_rounds",
    "decision_json",
    "evaluate",
    "evaluate_many",
    "export_benchmark",
    "fetch_standard",
    "generate",
    "generate_several",
    "generation_prices",
    "import_file",
    "import_format",
    "imported_models",
    "judge_benchmark",
    "make_report",
    "make_rule",
    "merged_runs",
    "meter_for",
    "money_line",
    "money_text",
    "open_benchmark_name",
    "opened_store",
    "parse_groupings",
    "parse_levels",
    "parse_until",
    "parse_zeta",
    "plan_several",
    "progress_for",
    "rate",
    "read_eval_set",
    "require_prices",
    "run_budgeted",
    "run_copies",
    "run_open_ended",
    "run_sync",
    "subset_for",
    "usd",
]
