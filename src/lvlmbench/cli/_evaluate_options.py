"""The options of ``lvlmbench evaluate`` as typer-annotated types, so the command's signature
reads as a list of names (their defaults are :class:`lvlmbench.workflows.EvaluateOptions`')."""

from __future__ import annotations

from typing import Annotated

import typer

from lvlmbench.models import DEFAULT_CONCURRENCY
from lvlmbench.models.openai import LOCAL_CONCURRENCY
from lvlmbench.runner import VARIANTS

__all__ = [
    "Alpha",
    "Budget",
    "BudgetUsd",
    "By",
    "Concurrency",
    "Epochs",
    "ExtractWith",
    "FirstRound",
    "Limit",
    "LimitSeed",
    "Models",
    "Until",
    "Variant",
]

Models = Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")]
Variant = Annotated[str, typer.Option(help=f"One of {', '.join(VARIANTS)}.")]
By = Annotated[str, typer.Option(help="Group accuracy by these facets (comma-separated).")]
Concurrency = Annotated[
    int | None,
    typer.Option(
        # Parentheses, not brackets: rich reads "[default: ...]" as markup and drops it.
        help=f"Requests in flight per endpoint (default: {DEFAULT_CONCURRENCY}; "
        f"{LOCAL_CONCURRENCY} for a server on this machine or a private network; what a "
        "local hf/ model asks for to keep its batches full).",
        show_default=False,
    ),
]
ExtractWith = Annotated[
    str | None,
    typer.Option(
        help="LLM (PROVIDER/NAME) that reads the answers the rules leave unparseable; "
        "its reads are stored and counted apart ('read by LLM').",
        show_default=False,
    ),
]
Limit = Annotated[
    int | None,
    typer.Option(
        help="Ask only N items: a seeded subset stratified by capability/category and "
        "difficulty, the same on every run; accuracy is over it. CircularEval copies and an MME "
        "picture's questions are drawn together (N may be exceeded by part of one).",
        show_default=False,
    ),
]
LimitSeed = Annotated[int, typer.Option(help="Seed of the --limit subset.")]
Epochs = Annotated[
    int,
    typer.Option(
        min=1,
        help="Answers per item, each cached and stored apart (asked anew even at "
        "temperature 0); accuracy is their mean, its interval over items.",
    ),
]
Until = Annotated[
    str | None,
    typer.Option(
        help="Ask items in doubling rounds of a stratified draw (seeded by --limit-seed) "
        "until answered: rank (every adjacent pair of models separated) or compare:A,B "
        "(is A better than B); anytime-valid tests at --alpha.",
        show_default=False,
    ),
]
Budget = Annotated[
    int | None,
    typer.Option(
        help="With --until: at most N examinee calls (items × models run × epochs).",
        show_default=False,
    ),
]
BudgetUsd = Annotated[
    float | None,
    typer.Option(
        "--budget-usd",
        help="With --until: at most X US dollars for the examinees' answers, at each "
        "spec's price=IN,OUT (USD per million input, output tokens; every model run needs "
        "one). Rounds are sized from the dearest item seen; stored answers count at their "
        "tokens, so a rerun stops at the same place and pays nothing.",
        show_default=False,
    ),
]
Alpha = Annotated[float, typer.Option(help="With --until: the chance of a wrong decision at most.")]
FirstRound = Annotated[
    int, typer.Option(help="With --until: items in the first round (then doubling).")
]
