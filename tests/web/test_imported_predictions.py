"""The web app shows a model whose answers came from a prediction file like any other: its
leaderboard accuracy is the store's, and its answers can be browsed."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient
from prediction_fixtures import (
    MMB_PREDICTION_HEADER,
    mmbench_prediction_rows,
    write_mmbench,
    write_xlsx,
)

from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.predictions import import_predictions
from lvlmbench.store import Store
from lvlmbench.web import WebSettings, create_app

BENCH = "MMBench_DEV_EN"


def test_leaderboard_and_items_of_an_imported_model(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        import_dataset(store, write_mmbench(tmp_path / f"{BENCH}.tsv"), "vlmeval", BENCH)
        rows = mmbench_prediction_rows()
        path = write_xlsx(tmp_path / f"MyVLM_{BENCH}.xlsx", MMB_PREDICTION_HEADER, rows)
        import_predictions(store, path, BENCH)
        app = create_app(store, WebSettings())
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            board = client.get(f"/b/{BENCH}")
            items = client.get(f"/b/{BENCH}/items", params={"model": "MyVLM", "outcome": "wrong"})
    finally:
        store.close()
    assert board.status_code == 200
    cell = re.search(
        r'<td class="acc" data-model="MyVLM" data-facet="overall"[^>]*>'
        r'<a href="[^"]+">([0-9.]+)</a></td>',
        board.text,
    )
    # 5 of the 6 answered copies right (the seventh has no prediction: a failure, not counted).
    assert cell is not None and cell.group(1) == "83.3"
    assert items.status_code == 200
    assert len(re.findall(r'class="card item" data-id="', items.text)) == 1  # index 1000002
