"""`lvlmbench models providers`: what each provider needs installed and which options it takes,
with the ones that change answers (and so the stored identity) marked."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from lvlmbench.cli import app


def test_providers_json_lists_install_hints_and_identity_options() -> None:
    result = CliRunner().invoke(app, ["models", "providers", "--json"])
    assert result.exit_code == 0, result.output
    rows = {(row["kind"], row["provider"]): row for row in json.loads(result.output)}
    hf = rows[("chat", "hf")]
    assert hf["install"] == "pip install 'lvlmbench[hf]'"
    assert "dtype" in hf["identity_options"] and "batch_size" not in hf["identity_options"]
    openai = rows[("chat", "openai")]
    assert openai["install"] == ""
    assert "base_url" in openai["identity_options"]
    assert "timeout" in openai["options"] and "timeout" not in openai["identity_options"]
    assert ("image", "diffusers") in rows and ("image", "procedural") in rows


def test_providers_table_keeps_the_extra_in_the_install_hint() -> None:
    result = CliRunner().invoke(app, ["models", "providers"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "pip install 'lvlmbench[hf]'" in result.output
    assert "base_url*" in result.output and "timeout*" not in result.output
