"""The `lvlmbench` command line (typer + rich): one module per command group."""

from __future__ import annotations

import logging
import os
import signal
from types import FrameType
from typing import Annotated

import typer

from lvlmbench import __version__
from lvlmbench._workers import workers_setting_error
from lvlmbench.cli._common import fail
from lvlmbench.cli.annotators import annotators_app
from lvlmbench.cli.compare import compare, power
from lvlmbench.cli.demo import demo
from lvlmbench.cli.evaluate import evaluate
from lvlmbench.cli.experiment import experiment_app
from lvlmbench.cli.export import export
from lvlmbench.cli.generate import generate
from lvlmbench.cli.importing import import_dataset
from lvlmbench.cli.judge import judge_app
from lvlmbench.cli.judgments import agreement, rate
from lvlmbench.cli.metrics import judge_metrics
from lvlmbench.cli.models import models_app
from lvlmbench.cli.report import report
from lvlmbench.cli.scenes import scenes_app
from lvlmbench.cli.serve import serve
from lvlmbench.cli.store import list_store, store_app
from lvlmbench.models import install_log_redaction

__all__ = ["app", "main"]

app = typer.Typer(
    name="lvlmbench",
    help="Evaluate large vision-language models.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.command("generate")(generate)
app.command("evaluate")(evaluate)
app.command("demo")(demo)
app.command("export")(export)
app.command("report")(report)
app.command("import")(import_dataset)
app.command("rate")(rate)
app.command("agreement")(agreement)
app.command("compare")(compare)
app.command("power")(power)
app.command("serve")(serve)
app.command("ls")(list_store)
judge_app.command("metrics")(judge_metrics)
app.add_typer(judge_app, name="judge")
app.add_typer(experiment_app, name="experiment")
app.add_typer(models_app, name="models")
app.add_typer(scenes_app, name="scenes")
app.add_typer(store_app, name="store")
app.add_typer(annotators_app, name="annotators")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lvlmbench {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
    images_dir: Annotated[
        str | None,
        typer.Option(
            "--images-dir",
            envvar="LVLMBENCH_IMAGES",
            help="Directory of the store's images (default: beside a SQLite file; "
            "./lvlmbench-images for a database server). Workers on several hosts sharing a "
            "PostgreSQL store must name one shared path.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """lvlmbench: AutoBench-V, VisIT-Bench and TouchStone on one store and one model layer."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if images_dir:
        # Through the environment: Store.open reads it, and so do the processes --workers starts.
        os.environ["LVLMBENCH_IMAGES"] = images_dir
    install_log_redaction()  # a key echoed into an error or a retry reason never reaches a log
    # Settings read from the environment are checked before any command opens the store: a
    # bad one found halfway through would leave rows written by a run that cannot finish.
    problem = workers_setting_error()
    if problem is not None:
        raise fail(problem)


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main() -> None:
    """Console-script entry point.

    SIGTERM (``kill``, ``timeout``, a scheduler stopping a job) ends the command by an exception,
    as Ctrl-C does, so every ``finally`` runs: finished answers stored, the client closed and
    the leases released. Left to its default, the process vanished holding its leases, and
    every run after it waited for them to expire."""
    signal.signal(signal.SIGTERM, _stop)
    app()
