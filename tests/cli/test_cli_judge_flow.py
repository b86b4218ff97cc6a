"""The VisIT-Bench flow a user runs from the shell: import a CSV and human votes, answer with
two examinees, judge in both orders with an OpenAI-compatible judge, rate, check agreement."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from fastapi.testclient import TestClient
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import model_identity
from lvlmbench.store import Store, iter_judgments
from lvlmbench.store import _schema as tables
from lvlmbench.web import create_app

runner = CliRunner()
MODELS = ["baseline/prior", "baseline/random"]


def _dataset(folder: Path) -> tuple[Path, Path]:
    colours = {"red": (200, 30, 30), "green": (30, 200, 30), "blue": (30, 30, 200)}
    rows = []
    for i, (name, rgb) in enumerate(colours.items()):
        Image.new("RGB", (16, 16), rgb).save(folder / f"img{i}.png")
        rows.append(
            ["What colour is the square?", "colour", f"img{i}.png", f"The square is {name}."]
        )
    visit = folder / "visit.csv"
    with visit.open("w", newline="") as sink:
        writer = csv.writer(sink)
        writer.writerow(["instruction", "instruction_category", "image", "reference_output"])
        writer.writerows(rows)
    votes = folder / "votes.csv"
    with votes.open("w", newline="") as sink:
        writer = csv.writer(sink)
        writer.writerow(["instance", "A_model", "B_model", "ann1", "ann2", "ann3"])
        writer.writerow([0, *MODELS, "A", "A", "B"])
        writer.writerow([1, *MODELS, "B", "B", "B"])
    return visit, votes


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_import_judge_rate_and_agree(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A database server's images live where LVLMBENCH_IMAGES says (a shared path in a team).
    monkeypatch.setenv("LVLMBENCH_IMAGES", str(tmp_path / "images"))
    visit, votes = _dataset(tmp_path)
    db = ["--store", store_url]
    _ok(["import", str(visit), "-f", "visit", "--name", "visit", *db])
    _ok(["import", str(votes), "-f", "votes", "--name", "visit", *db])
    with FakeOpenAIServer() as server:
        judge = f"openai/judge?base_url={server.base_url}"
        models = [flag for m in MODELS for flag in ("-m", m)]
        _ok(["judge", "pairwise", "visit", *models, "-j", judge, *db])
        # 3 items x 1 pair x 2 orders (the examinees were asked first by the judge command);
        # when both examinees wrote the same answer the two orders read alike and share one
        # cached call.
        assert 0 < server.stats.requests <= 6

    store = Store.open(db[1])
    # The judge is stored under its identity: its endpoint is part of it.
    identity = model_identity(judge)
    assert identity == f"openai/judge?base_url={server.base_url.rstrip('/')}"
    rows = list(iter_judgments(store, judge=identity))
    assert len(rows) == 6 and {r.order for r in rows} == {"ab", "ba"}
    assert list(iter_judgments(store, judge="openai/judge")) == []
    store.close()

    rated = json.loads(_ok(["rate", "visit", "--json", *db]))
    assert set(rated["online_elo"]["in_order"]) == set(MODELS)
    # The judge is named with its options, as the user typed it for `judge pairwise`.
    agreed = json.loads(_ok(["agreement", "visit", "-j", judge, "--json", *db]))
    assert agreed["judge"] == identity and agreed["pairs"] == 2
    _read_back(db, tmp_path)


def _read_back(db: list[str], tmp_path: Path) -> None:
    """Everything that reads the store (report, export, ls, store info, the web app) sees the
    run, whatever database holds it."""
    page = tmp_path / "report.html"
    _ok(["report", "--out", str(page), *db])
    assert "visit" in page.read_text() and (tmp_path / "summary.json").exists()
    info = json.loads(_ok(["store", "info", "--json", *db]))
    # 6 judge calls and 6 human votes (2 pairs x 3 annotators); 3 images.
    assert info["tables"]["judgments"] == 12 and info["image_files"] == 3
    assert info["images_dir"] == str(tmp_path / "images")
    assert "visit" in _ok(["ls", *db])
    _ok(["export", "visit", "--out", str(tmp_path / "exported"), *db])
    assert any((tmp_path / "exported").iterdir())
    store = Store.open(db[1])
    try:
        with TestClient(create_app(store), base_url="http://127.0.0.1:8000") as client:
            listed = client.get("/api/benchmarks").json()["benchmarks"]
            assert [b["name"] for b in listed] == ["visit"]
            page = client.get("/b/visit/items")
            assert page.status_code == 200 and "What colour is the square?" in page.text
            digest = next(iter(store.existing_keys(tables.images, "sha256")))
            assert client.get(f"/images/{digest}").content.startswith(b"\x89PNG")
    finally:
        store.close()
