"""`lvlmbench experiment guidelines BENCH`: the paper's Table 4 side by side, as the report shows
it: BENCH and the benchmark that differs from it only by ``--no-guidelines``, people's alignment
rates per check and level with and without the guidelines, the self-checks of both, and the
agreement between annotators on each."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lvlmbench.cli._common import BadInput, StoreOption, console, open_store, print_json
from lvlmbench.judging.human_checks import CHECKS, check_summaries
from lvlmbench.report.guidelines_table import ConditionRate, guidelines_table
from lvlmbench.store import Store, require_benchmark

__all__ = ["guidelines"]

JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _cell(cell: ConditionRate | None) -> str:
    if cell is None:
        return "-"
    return f"{cell.rate:.1f} [{cell.low:.1f}, {cell.high:.1f}] (n={cell.n})"


def _agreement(store: Store, benchmark: str) -> dict[str, str]:
    """Each check's agreement between annotators on ``benchmark``, as printed."""
    shown = {}
    for summary in check_summaries(store, benchmark):
        found = summary.agreement
        if found is None or found.value is None:
            shown[summary.check] = "-" if found is None else f"- ({found.reason})"
        else:
            shown[summary.check] = (
                f"{found.method} {found.value:.3f} ({found.items} items, "
                f"{found.annotators} annotators)"
            )
    return shown


def guidelines(benchmark: str, store: StoreOption = None, as_json: JsonFlag = False) -> None:
    """The paper's Table 4: BENCH beside the benchmark that differs from it only by
    --no-guidelines (same capability, examiner, images and settings), people's alignment rates
    per check and level (the web app's check page) with Wilson 95% intervals."""
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    data = guidelines_table(opened, benchmark)
    if data is None:
        raise BadInput(
            f"benchmark {benchmark!r} has no twin that differs from it only by "
            "--no-guidelines: generate one with the same settings, --no-guidelines and "
            "another --name"
        )
    names = (data.with_guidelines, data.without)
    agreement = {name: _agreement(opened, name) for name in names}
    if as_json:
        print_json({**data.as_dict(), "agreement": agreement})
        return
    title = f"with guidelines ({names[0]}) vs without ({names[1]}): Table 4"
    table = Table(title=title, title_justify="left")
    for column in ("measure", "level", "with guidelines %", "without %"):
        table.add_column(column)
    for row in data.rows:
        table.add_row(row.label, row.level, _cell(row.with_guidelines), _cell(row.without))
    for label, shares in (
        ("self-check mean alignment", [s.mean_alignment for s in data.self_check]),
        ("self-check rejection rate", [s.rejection_rate for s in data.self_check]),
    ):
        shown = ["-" if v is None else f"{100 * v:.1f}" for v in shares]
        table.add_row(label, "all levels", *shown)
    for check in CHECKS:
        pair = [agreement[name].get(check) for name in names]
        if any(pair):
            table.add_row(f"agreement: {CHECKS[check]}", "", *(p or "-" for p in pair))
    console.print(table)
