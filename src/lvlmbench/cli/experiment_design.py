"""`lvlmbench experiment diversity|aspects|leakage-levels|ranks|guidelines BENCH ...`: the paper's
experiments on a generated benchmark's design (its topics' diversity, its aspect grid, its
difficulty levels), beside the examinee experiments of ``experiment.py``.

Diversity and aspect figures are stored with the benchmark (artifacts of stage
``experiment``) so the report shows them; the per-level figures are recomputed from stored
responses.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Annotated, Any, cast

import typer
from rich.table import Table

from lvlmbench.autobench import AspectPlan
from lvlmbench.autobench.diversity import BanPolicy
from lvlmbench.autobench.exp_aspects import aspect_grid
from lvlmbench.autobench.exp_diversity import FIGURES, diversity_experiment
from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    print_json,
)
from lvlmbench.cli.experiment_guidelines import guidelines
from lvlmbench.cli.experiment_levels import leakage_levels, ranks
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.stats import format_interval
from lvlmbench.store import Store, get_artifact, put_artifact

__all__ = ["EXPERIMENT_STAGE", "parse_schedule", "register"]

EXPERIMENT_STAGE = "experiment"
"""Artifact stage under which a benchmark keeps its diversity and aspect experiments."""

JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Examiner = Annotated[
    str, typer.Option("--examiner", help="Examiner model spec (writes the descriptions/aspects).")
]
_SCHEDULE = re.compile(r"^(\d*)i$|^(\d+)$")


def parse_schedule(text: str) -> Callable[[int], int]:
    """``i`` (the paper's f(i) = i), ``Ki`` (K·i) or ``K`` (K every round) → f."""
    match = _SCHEDULE.match(text.strip())
    if match is None:
        raise BadInput(f"--exclude {text!r}: write i, Ki (e.g. 2i) or a whole number K")
    if match.group(2) is not None:
        constant = int(match.group(2))
        return lambda i: constant
    factor = int(match.group(1) or 1)
    return lambda i: factor * i


def _plan(store: Store, benchmark: str) -> tuple[AspectPlan, dict[str, Any]]:
    plan = get_artifact(store, benchmark, "plan", "plan")
    settings = get_artifact(store, benchmark, "settings", "settings")
    if plan is None or settings is None:
        raise BadInput(
            f"{benchmark!r} has no stored aspect plan: run it on a benchmark made by "
            "`lvlmbench generate`"
        )
    return AspectPlan.model_validate(plan), dict(settings["settings"])


def _examiner(spec: str, store: Store) -> ModelClient:
    if spec == "procedural":
        raise BadInput(
            "the built-in examiner writes no topic words for the graph to act on: give a model "
            "examiner, e.g. --examiner openai/gpt-4o"
        )
    return ModelClient(load_chat_model(spec), store)


def _interval(value: dict[str, Any]) -> str:
    interval = format_interval(value["low"], value["high"], digits=2)
    return f"{value['mean']:.2f} [{interval}]"


def _diversity_table(benchmark: str, result: dict[str, Any]) -> Table:
    table = Table(
        title=f"{benchmark}: diversity with vs without the semantic graph (mean per group, 95% "
        f"bootstrap interval; {len(result['groups'])} groups of {result['settings']['count']})",
        title_justify="left",
    )
    table.add_column("figure")
    conditions = [c for c in ("graph", "no graph", "difference") if c in result["summary"]]
    for condition in conditions:
        table.add_column("with − without" if condition == "difference" else condition)
    for name in FIGURES:
        cells = [_interval(result["summary"][c][name]) for c in conditions]
        table.add_row(name.replace("_", " "), *cells)
    return table


def diversity(
    benchmark: Annotated[str, typer.Argument(help="A generated benchmark (its aspects).")],
    examiner: Examiner,
    count: Annotated[int, typer.Option(help="Descriptions per (aspect, level) group.")] = 10,
    aspects: Annotated[int | None, typer.Option(help="Only the first N fine aspects.")] = None,
    exclude: Annotated[str, typer.Option(help="f(i): i, Ki or K nodes per round.")] = "i",
    bans: Annotated[str, typer.Option(help="per-round (the paper) or accumulate.")] = "per-round",
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Descriptions written with and without the semantic graph from one seed, and per-group
    figures that show a theme coming back: distinct topics, topic entropy, share of the most
    common topic, keyword uniqueness."""
    schedule = parse_schedule(exclude)
    if bans not in ("per-round", "accumulate"):
        raise BadInput(f"--bans {bans!r}: choose per-round or accumulate")
    if count < 2:
        raise BadInput(f"--count {count}: at least 2 rounds are needed for the graph to act")
    opened = open_store(store)
    plan, settings = _plan(opened, benchmark)
    client = _examiner(examiner, opened)
    chosen = plan.aspects[:aspects] if aspects else plan.aspects

    async def run() -> dict[str, Any]:
        try:
            result = await diversity_experiment(
                client,
                chosen,
                settings.get("levels", ["easy", "medium", "hard"]),
                count,
                int(settings.get("seed", 0)),
                schedule,
                cast(BanPolicy, bans),
            )
        finally:
            await client.aclose()
        data = result.model_dump(mode="json")
        data["settings"].update(examiner=client.spec, exclude=exclude)
        return data

    data = asyncio.run(run())
    put_artifact(opened, benchmark, EXPERIMENT_STAGE, "diversity", data)
    if as_json:
        print_json(data)
        return
    console.print(_diversity_table(benchmark, data))


def aspects_experiment(
    benchmark: Annotated[str, typer.Argument(help="A generated benchmark (its capability).")],
    examiner: Examiner = "procedural",
    n: Annotated[str, typer.Option(help="General aspect counts, comma-separated.")] = "2,4,6",
    m: Annotated[str, typer.Option(help="Fine aspect counts, comma-separated.")] = "2,4,6",
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Aspect diversity over a grid of (n, m): 1 − mean pairwise Jaccard of the fine aspects'
    words, near-duplicate pairs and shortfalls (the paper's Table 1)."""
    ns, ms = _ints(n, "--n"), _ints(m, "--m")
    opened = open_store(store)
    plan, _ = _plan(opened, benchmark)
    rows = asyncio.run(_grid(examiner, opened, plan.capability, ns, ms))
    data = {"capability": plan.capability, "examiner": examiner, "grid": rows}
    put_artifact(opened, benchmark, EXPERIMENT_STAGE, "aspects", data)
    if as_json:
        print_json(data)
        return
    table = Table(title=f"{plan.capability}: aspect diversity vs (n, m)", title_justify="left")
    for column in ("n", "m", "fine aspects", "diversity", "near-duplicates", "shortfalls"):
        table.add_column(column, justify="right")
    for r in rows:
        shown = "-" if r["diversity"] is None else f"{r['diversity']:.3f}"
        table.add_row(
            str(r["n"]), str(r["m"]), str(r["fine"]), shown, str(r["near_duplicates"]),
            str(r["problems"]),
        )  # fmt: skip
    console.print(table)


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise BadInput(f"{option} {text!r}: write whole numbers separated by commas") from None
    if not values or min(values) < 1:
        raise BadInput(f"{option} {text!r}: every value must be at least 1")
    return values


async def _grid(
    examiner: str, store: Store, capability: str, ns: list[int], ms: list[int]
) -> list[dict[str, Any]]:
    backend: ProceduralBackend | ModelBackend
    if examiner == "procedural":
        backend = ProceduralBackend()
    else:
        backend = ModelBackend(ModelClient(load_chat_model(examiner), store))
    try:
        rows = await aspect_grid(backend, capability, ns, ms)
    finally:
        await backend.aclose()
    return [r.model_dump(mode="json") for r in rows]


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``lvlmbench experiment``."""
    app.command("diversity")(friendly_errors(diversity))
    app.command("aspects")(friendly_errors(aspects_experiment))
    app.command("leakage-levels")(friendly_errors(leakage_levels))
    app.command("ranks")(friendly_errors(ranks))
    app.command("guidelines")(friendly_errors(guidelines))
