"""The generation summary `generate` prints states what the stored report says about cut
prompts: the count measured by the text-to-image model's tokenizer as a row, and each warning
on its own line on stderr (what the command prints for a report read back from the store)."""

from __future__ import annotations

import pytest

from lvlmbench.cli.generate import print_report
from lvlmbench.store import GenerationReport, PromptTruncation

SELF_CHECK = {
    "units": 4, "accepted": 4, "dropped": 0, "renders": 4, "rejected_renders": 0,
    "rejection_rate": 0.0, "regeneration_rate": 0.0, "accepted_with_errors": 0,
}  # fmt: skip


def test_the_prompt_length_row_and_the_warnings_are_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cut = PromptTruncation(
        encoder="tokenizer (CLIPTokenizer)", limit=77, truncated=2, items=4, longest=93,
        units=["a|b|hard|0", "a|c|hard|0"],
    )  # fmt: skip
    warning = "2 of 4 items' descriptions are longer than the 77 tokens ..."
    report = GenerationReport(
        examiner="x (text mode) + diffusers/sdxl",
        self_check=SELF_CHECK,
        items=4,
        prompt_truncation=cut,
        warnings=[warning],
    )
    print_report(report, "bench")
    out, err = capsys.readouterr()
    said = " ".join(out.split())
    assert "prompt length" in said
    assert "2 of 4 descriptions past the 77-token limit of tokenizer (CLIPTokenizer)" in said
    assert "(longest 93)" in said
    assert f"warning: {warning}" in " ".join(err.split())


def test_a_report_without_them_prints_neither(capsys: pytest.CaptureFixture[str]) -> None:
    print_report(GenerationReport(examiner="procedural", self_check=SELF_CHECK, items=4), "b")
    out, err = capsys.readouterr()
    assert "prompt length" not in out and "warning" not in err
