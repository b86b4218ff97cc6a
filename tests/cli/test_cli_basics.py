import json

from PIL import Image
from typer.testing import CliRunner

from lvlmbench import __version__
from lvlmbench.cli import app

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_store_info_json(tmp_path):
    result = runner.invoke(app, ["store", "info", "--store", str(tmp_path / "s.db"), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["schema_version"] >= 1 and info["tables"]["items"] == 0


def test_store_in_missing_directory_is_exit_2(tmp_path):
    result = runner.invoke(app, ["store", "info", "--store", str(tmp_path / "no" / "s.db")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_unknown_provider_is_one_clear_line():
    result = runner.invoke(app, ["models", "check", "nosuch/model"])
    assert result.exit_code == 2
    assert "unknown provider 'nosuch'" in result.output
    assert "Traceback" not in result.output


def test_unreachable_server_is_exit_2():
    result = runner.invoke(
        app, ["models", "check", "openai/x", "--base-url", "http://127.0.0.1:9/v1"]
    )
    assert result.exit_code == 2
    assert "cannot reach" in result.output


def test_missing_key_for_openai_says_which_variable():
    result = runner.invoke(app, ["models", "check", "openai/gpt-4o-mini"])
    assert result.exit_code == 2
    assert "OPENAI_API_KEY" in result.output


def test_unreadable_image_is_exit_2(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    result = runner.invoke(
        app,
        ["models", "check", "openai/x", "--base-url", "http://127.0.0.1:9/v1", "--image", str(bad)],
    )
    assert result.exit_code == 2
    assert "bad.png" in result.output and "not a readable image" in result.output
    missing = runner.invoke(
        app, ["models", "check", "openai/x", "--image", str(tmp_path / "none.png")]
    )
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_good_image_passes_validation(tmp_path):
    good = tmp_path / "ok.png"
    Image.new("RGB", (8, 8), "blue").save(good)
    result = runner.invoke(
        app,
        [
            "models",
            "check",
            "openai/x",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--image",
            str(good),
        ],
    )
    assert "not a readable image" not in result.output
