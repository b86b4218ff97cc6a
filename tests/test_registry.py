"""The one registry style: order, duplicate names, unknown names, and the CLI's choices read
from the registries rather than kept beside them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.datasets import IMPORT_FORMATS, VOTE_FORMATS
from lvlmbench.judging import protocols
from lvlmbench.registry import DuplicateName, Registry, UnknownName

runner = CliRunner()


def test_names_keep_registration_order_and_replacing_keeps_the_place() -> None:
    table: Registry[int] = Registry("widget")
    table.add("b", 1, help="the b")
    table.add("a", 2)
    table.add("b", 3, replace=True)
    assert table.names() == ("b", "a") and table["b"] == 3 and table.help("b") == "the b"
    with pytest.raises(DuplicateName, match="widget 'a' is already registered"):
        table.add("a", 4)
    assert table["a"] == 2


def test_unknown_names_are_refused_naming_the_known_ones() -> None:
    table: Registry[int] = Registry("widget")
    table.add("one", 1)
    with pytest.raises(UnknownName, match=r"unknown widget 'two'; known: one$"):
        table.get_or_raise("two")
    table.remove("one")
    assert table.get("one") is None and table.known() == "none"


def test_import_formats_are_the_item_vote_and_prediction_formats() -> None:
    kinds = {name: entry.kind for name, entry in IMPORT_FORMATS.items()}
    assert [n for n, k in kinds.items() if k == "votes"] == list(VOTE_FORMATS)
    assert [n for n, k in kinds.items() if k == "predictions"] == ["predictions"]
    items = [n for n, k in kinds.items() if k == "items"]
    assert items == ["visit", "touchstone", "jsonl", "vlmeval", "llava", "hf"]


def test_cli_import_offers_and_accepts_exactly_the_registered_formats(tmp_path: Path) -> None:
    shown = " ".join(runner.invoke(app, ["import", "--help"]).output.split())
    # rich may break a line inside a name: compare without the box characters
    flat = shown.replace("│", "").replace(" ", "")
    assert ",".join(IMPORT_FORMATS.names()) in flat
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    for name in IMPORT_FORMATS.names():
        result = runner.invoke(
            app, ["import", str(empty), "-f", name, "--store", str(tmp_path / "x.db")]
        )
        assert "Invalid value for '--format'" not in result.output, name
    refused = runner.invoke(
        app, ["import", str(empty), "-f", "nope", "--store", str(tmp_path / "x.db")]
    )
    assert refused.exit_code == 2 and "'nope' is not one of visit" in refused.output


def test_cli_judge_has_a_command_per_registered_protocol() -> None:
    shown = runner.invoke(app, ["judge", "--help"]).output
    for protocol in protocols():
        if protocol.run is not None:
            assert protocol.name in shown, protocol.name
