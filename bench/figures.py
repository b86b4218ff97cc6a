"""One benchmark figure as a JSON line, for bench/summary.py's closing table.

Each bench script calls :func:`emit` for every figure it prints. When the environment variable
``LVLMBENCH_BENCH_JSON`` names a file, the figure is appended to it as one JSON object
(``bench``, ``figure``, ``value``, ``unit``, ``target``, ``ok``, ``note``); otherwise nothing
happens, so the scripts still run on their own.
"""

from __future__ import annotations

import json
import os

ENV = "LVLMBENCH_BENCH_JSON"


def emit(
    bench: str,
    figure: str,
    value: float | None,
    unit: str,
    target: str,
    ok: bool | None,
    note: str = "",
) -> None:
    """Append one figure to ``$LVLMBENCH_BENCH_JSON`` when it is set."""
    path = os.environ.get(ENV)
    if not path:
        return
    row = {
        "bench": bench,
        "figure": figure,
        "value": value,
        "unit": unit,
        "target": target,
        "ok": ok,
        "note": note,
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
