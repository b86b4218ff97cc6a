"""One small real demo store for all report tests (generated once per session), plus a hostile
examinee and a handful of pairwise judgments so that every report section has data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.report import write_report
from lvlmbench.store import Store, iter_items, put_judgments, put_responses
from lvlmbench.types import Judgment, Response, Status

AUTOBENCH = "spatial-understanding-s0"
OPEN = "open-ended-s0"
HOSTILE_TEXT = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
HOSTILE_MODEL = "evil/<b>bold</b>"


@dataclass(frozen=True)
class Built:
    store: Store
    html_path: Path
    summary_path: Path
    html: str


def _add_hostile(store: Store) -> None:
    responses = [
        Response(
            item_id=item.id,
            model=HOSTILE_MODEL,
            text=HOSTILE_TEXT,
            extracted=None,
            status=Status.UNPARSEABLE,
        )
        for item in iter_items(store, AUTOBENCH)
    ]
    put_responses(store, responses)


def _add_pairwise(store: Store) -> None:
    rows = []
    for item in list(iter_items(store, OPEN))[:20]:
        for player, wins in (("baseline/oracle", True), ("baseline/random", False)):
            first, second = ("a", "b") if wins else ("b", "a")
            rows.append(
                Judgment(
                    item_id=item.id,
                    judge="judge/fake",
                    protocol="pairwise",
                    model_a=player,
                    model_b="reference",
                    verdict=first,
                    order="ab",
                )
            )
            rows.append(
                Judgment(
                    item_id=item.id,
                    judge="judge/fake",
                    protocol="pairwise",
                    model_a="reference",
                    model_b=player,
                    verdict=second,
                    order="ba",
                )
            )
    put_judgments(store, rows)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    out = tmp_path_factory.mktemp("report-demo")
    saved = {
        k: os.environ.pop(k) for k in ("LVLMBENCH_STORE", "LVLMBENCH_IMAGES") if k in os.environ
    }
    try:
        result = CliRunner().invoke(
            app,
            [
                "demo",
                "--out",
                str(out),
                "--per-aspect",
                "1",
                "--capability",
                "spatial understanding",
            ],
        )
        assert result.exit_code == 0, result.output
        store = Store.open(str(out / "lvlmbench.db"))
        _add_hostile(store)
        _add_pairwise(store)
        html_path, summary_path = write_report(store, out / "report" / "report.html")
        yield Built(store, html_path, summary_path, html_path.read_text(encoding="utf-8"))
        store.close()
    finally:
        os.environ.update(saved)
