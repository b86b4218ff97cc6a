"""`evaluate` ranks as the report does: only the models that answered every keyed item, on the
items they all answered. A model scored on 4 of 24 items used to shrink the others' common set
to those 4 and sit in the ranking with them; now it is flagged "partial" and not ranked."""

from __future__ import annotations

import json
from pathlib import Path

from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import Response

runner = CliRunner()


def _store(tmp_path: Path) -> Path:
    # 24 items; "strong" right on all, "weak" right on every 4th, "part" right on the first 4
    # only (the only items it answered).
    db = write_quiz(tmp_path / "s.db", "quiz", 24)
    store = Store.open(str(db))
    items = sorted(iter_items(store, "quiz"), key=lambda i: i.id)

    def said(model: str, right: bool, n: int) -> Response:
        key = items[n].answer
        assert key is not None
        text = key if right else ("B" if key == "A" else "A")
        return Response(item_id=items[n].id, model=model, text=text, extracted=text)

    responses = [said("strong", True, n) for n in range(24)]
    responses += [said("weak", n % 4 == 0, n) for n in range(24)]
    responses += [said("part", True, n) for n in range(4)]
    put_responses(store, responses)
    store.close()
    return db


def test_a_partial_model_is_flagged_and_not_ranked(tmp_path: Path) -> None:
    db = _store(tmp_path)
    args = ["evaluate", "quiz", "-m", "strong", "-m", "weak", "-m", "part", "--by", ""]
    out = runner.invoke(app, [*args, "--store", str(db), "--json"])
    assert out.exit_code == 0, out.output
    overall = {row["model"]: row for row in json.loads(out.stdout)["overall"]}
    # Ranked on the full models' common set (24 items), not on part's 4 items.
    assert overall["strong"]["rank_method"]["items"] == 24
    assert (overall["strong"]["rank"], overall["weak"]["rank"]) == (1, 2)
    assert "rank" not in overall["part"]
    shown = runner.invoke(app, [*args, "--store", str(db)])
    assert "partial: 4 of 24 items, not ranked" in shown.output
    assert "only models that answered every keyed item are ranked" in " ".join(shown.output.split())
