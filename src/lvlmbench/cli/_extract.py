"""`evaluate --extract-with SPEC`: the extraction pass's closing line (the pass itself is the
use case's, :mod:`lvlmbench.workflows.evaluate`)."""

from __future__ import annotations

from lvlmbench.choice import ExtractorSummary
from lvlmbench.cli._common import console

__all__ = ["print_extraction"]


def print_extraction(summary: ExtractorSummary) -> None:
    console.print(
        f"extractor {summary.extractor}: {summary.read} answers read of {summary.asked} "
        f"unparseable asked, {summary.no_answer} still unparseable, {summary.failed} failed, "
        f"{summary.already} read before"
    )
