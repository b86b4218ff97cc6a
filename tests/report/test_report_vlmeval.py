"""The report's VLMEvalKit sections: CircularEval and MME tables for benchmarks imported from
VLMEvalKit with imported predictions, and none for other benchmarks."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prediction_fixtures import (
    MMB_PREDICTION_HEADER,
    MME_PREDICTIONS,
    b64_image,
    mmbench_prediction_rows,
    write_mmbench,
    write_mme,
    write_tsv,
    write_xlsx,
)

from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.predictions import import_predictions
from lvlmbench.report import benchmark_summary
from lvlmbench.report.render import render_benchmark
from lvlmbench.store import Store


def _cell(html: str, model: str, name: str, value: str) -> str | None:
    found = re.search(rf'<td data-model="{model}" data-{name}="{value}">([^<]+)</td>', html)
    return found.group(1) if found else None


def test_circular_and_mme_sections(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        import_dataset(store, write_mmbench(tmp_path / "MMB.tsv"), "vlmeval", "MMB")
        rows = mmbench_prediction_rows()
        mmb_preds = write_xlsx(tmp_path / "V_MMB.xlsx", MMB_PREDICTION_HEADER, rows)
        import_predictions(store, mmb_preds, "MMB")
        import_dataset(store, write_mme(tmp_path / "MME.tsv"), "vlmeval", "MME")
        preds = [[i, p] for i, p in MME_PREDICTIONS.items()]
        mme_preds = write_tsv(tmp_path / "V_MME.tsv", ["index", "prediction"], preds)
        import_predictions(store, mme_preds, "MME")
        # The same yes/no pairs as our own JSONL: no MME section (not a VLMEvalKit benchmark).
        lines = [
            json.dumps({"id": str(i), "index": i, "question": "q?", "answer": "yes",
                        "image": b64_image("red"), "category": "color"})
            for i in (1, 2)
        ]  # fmt: skip
        (tmp_path / "plain.jsonl").write_text("\n".join(lines))
        import_dataset(store, tmp_path / "plain.jsonl", "jsonl", "plain")
        import_predictions(store, mme_preds, "plain", model="V")
        mmb = benchmark_summary(store, "MMB")
        mme = benchmark_summary(store, "MME")
        plain = benchmark_summary(store, "plain")
    finally:
        store.close()
    assert [r["questions_correct"] for r in mmb["circular"]] == [1] and mmb["mme"] == []
    # color and OCR are 2 of MME's 10 perception categories: no perception total (175 would
    # be no MME score), the cell says how many categories there are.
    [row] = mme["mme"]
    assert mme["circular"] == [] and row["perception"] is None and row["reasoning"] is None
    assert row["totals"]["perception"]["text"] == "2 of 10 categories"
    assert _cell(render_benchmark(mme), "V", "total", "perception") == "2 of 10 categories"
    assert plain["mme"] == [] and plain["overall"]  # scored as accuracy only
    html = render_benchmark(mmb)
    assert _cell(html, "V", "facet", "circular") == "33.3"
    assert _cell(html, "V", "facet", "per-row") == "83.3"
    assert _cell(render_benchmark(mme), "V", "category", "color") == "125.0 (75 / 50)"
