"""One small real demo store for all report tests (generated once per session), plus a hostile
examinee and a handful of pairwise, TouchStone-score and hallucination judgments so that every
report section has data."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.report import ReportFiles, write_report
from lvlmbench.store import Store, iter_items, put_judgments, put_responses
from lvlmbench.types import Judgment, Response, Status

AUTOBENCH = "spatial-understanding-s0"
OPEN = "open-ended-s0"
HOSTILE_TEXT = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
HOSTILE_MODEL = "evil/<b>bold</b>"
SCORE_JUDGE = "judge/scorer"
SCORE_REFERENCE = "reference:judge/scorer"
HALLUCINATION_JUDGE = "judge/halluc"


@dataclass(frozen=True)
class Built:
    store: Store
    files: ReportFiles
    html: str

    @property
    def html_path(self) -> Path:
        return self.files.html

    @property
    def summary_path(self) -> Path:
        return self.files.summary


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


def _score_rows(item_id: str, model: str, mine: float, ref: float, ok: bool) -> list[Judgment]:
    """Both presentation orders; the second one unparseable when not ``ok``."""
    common = {"item_id": item_id, "judge": SCORE_JUDGE, "protocol": "score"}
    first = Judgment(
        **common, model_a=model, model_b=SCORE_REFERENCE, score_a=mine, score_b=ref, order="ab"
    )
    second = Judgment(
        **common,
        model_a=SCORE_REFERENCE,
        model_b=model,
        score_a=ref if ok else None,
        score_b=mine - 1 if ok else None,  # order effect: averaged away by the report
        order="ba",
        status=Status.OK if ok else Status.UNPARSEABLE,
    )
    return [first, second]


def _add_scores(store: Store) -> None:
    """TouchStone score rows on 16 open items (four abilities) and hallucination ratings."""
    rows = []
    for i, item in enumerate(list(iter_items(store, OPEN))[:16]):
        rows += _score_rows(item.id, "baseline/oracle", 8.0 + i % 3, 7.0, True)
        rows += _score_rows(item.id, "baseline/random", 2.0 + i % 4, 7.0, i != 5)
        for model, rating in (("baseline/oracle", i % 2), ("baseline/random", 4 + i % 5)):
            ok = not (model == "baseline/random" and i == 3)
            rows.append(
                Judgment(
                    item_id=item.id,
                    judge=HALLUCINATION_JUDGE,
                    protocol="hallucination",
                    model_a=model,
                    score_a=float(rating) if ok else None,
                    status=Status.OK if ok else Status.ERROR,
                )
            )
    put_judgments(store, rows)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    out = tmp_path_factory.mktemp("report-demo")
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
    _add_scores(store)
    files = write_report(store, out / "report" / "report.html")
    yield Built(store, files, files.html.read_text(encoding="utf-8"))
    store.close()
