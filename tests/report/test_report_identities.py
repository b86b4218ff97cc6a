"""The report shows short model names, and tells apart two identities that share one."""

from __future__ import annotations

from pathlib import Path

from lvlmbench.report import write_report
from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

A = "openai/m?base_url=http://127.0.0.1:8001/v1"
B = "openai/m?base_url=http://127.0.0.1:8002/v1"


def test_report_tells_two_endpoints_of_one_model_apart(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    put_benchmark(store, "bench", "imported", {})
    items = [
        BenchmarkItem(
            id=f"i{i}",
            benchmark="bench",
            question=f"True? ({i})",
            kind="tf",
            answer="true",
            meta={"difficulty": "easy"},
        )
        for i in range(2)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=model, text=answer, extracted=answer)
            for item in items
            for model, answer in ((A, "true"), (B, "false"), ("baseline/prior", "true"))
        ],
    )
    files = write_report(store, tmp_path / "r.html")
    store.close()
    html = files.html.read_text(encoding="utf-8")
    assert "<td>openai/m (127.0.0.1:8001)</td>" in html
    assert "<td>openai/m (127.0.0.1:8002)</td>" in html
    assert "<td>baseline/prior</td>" in html
    # The machine-readable summary keeps the exact identities.
    summary = files.summary.read_text(encoding="utf-8")
    assert A in summary and B in summary
