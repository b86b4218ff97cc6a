"""Run every bench/bench_*.py and close with one table of all their figures and targets.

Each script runs in its own process with ``LVLMBENCH_BENCH_JSON`` naming a temporary file; its
own output streams through as it runs, and every figure it appends to that file (one JSON object
a line: bench, figure, value, unit, target, ok, note) lands in the closing table, with the load
average and CPU count of the machine. A missed target is reported, not a failure: the exit
status is non-zero only when a script crashed (or wrote no figure at all).
Run: ``.venv/bin/python bench/summary.py [--only renderer ratings ...]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import ENV

BENCH = Path(__file__).resolve().parent


def run(script: Path, figures: Path) -> tuple[int, float]:
    """Run one script with its output streaming through; (exit status, seconds)."""
    print(f"== {script.relative_to(BENCH.parent)}", flush=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(script)], env={**os.environ, ENV: str(figures)}, check=False
    )
    return done.returncode, time.perf_counter() - started


def read(figures: Path) -> list[dict[str, Any]]:
    if not figures.exists():
        return []
    rows = []
    for line in figures.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return "nan"
        magnitude = abs(number)
        if magnitude >= 1000:
            return f"{number:,.0f}"
        if magnitude >= 100:
            return f"{number:.1f}"
        if magnitude >= 1:
            return f"{number:.2f}"
        return f"{number:.3g}"
    return str(value)


def verdict(ok: object) -> str:
    if ok is True:
        return "ok"
    return "MISSED" if ok is False else "—"


def table(rows: list[dict[str, Any]]) -> str:
    header = ("bench", "figure", "value", "unit", "target", "ok")
    cells = [
        (
            str(r.get("bench", "")),
            str(r.get("figure", "")),
            shown(r.get("value")),
            str(r.get("unit", "")),
            str(r.get("target", "")),
            verdict(r.get("ok")),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    right = {2}  # values line up on the right

    def line(row: tuple[str, ...]) -> str:
        parts = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        return " | ".join(parts).rstrip()

    out = [line(header), "-+-".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="run only these (e.g. ratings)")
    args = parser.parse_args()
    scripts = sorted(BENCH.glob("bench_*.py"))
    if args.only:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in args.only]
    crashed: list[str] = []
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lvlmbench-bench-") as tmp:
        for script in scripts:
            figures = Path(tmp) / f"{script.stem}.jsonl"
            status, seconds = run(script, figures)
            found = read(figures)
            if status != 0 or not found:
                why = f"exit status {status}" if status else "wrote no figures"
                crashed.append(f"{script.name}: {why}")
                found.append(
                    {
                        "bench": script.stem.removeprefix("bench_"),
                        "figure": "script",
                        "value": None,
                        "unit": "",
                        "target": "runs",
                        "ok": False,
                        "note": why,
                    }
                )
            print(f"   ({seconds:.1f} s)", flush=True)
            rows += found
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    cpus = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    print()
    print(
        f"== summary: {len(rows)} figures from {len(scripts)} scripts in "
        f"{time.perf_counter() - started:.0f} s; load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} (1/5/15 min) on {cpus} CPUs ({usable} usable)"
    )
    print(table(rows))
    notes = [(r, str(r.get("note") or "")) for r in rows]
    notes = [(r, n) for r, n in notes if n]
    if notes:
        print("\nnotes:")
        for r, note in notes:
            print(f"- {r.get('bench')} / {r.get('figure')}: {note}")
    missed = [r for r in rows if r.get("ok") is False and r.get("figure") != "script"]
    if missed:
        print(f"\n{len(missed)} figure(s) missed their target (reported, not a failure)")
    if crashed:
        print("\ncrashed: " + "; ".join(crashed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
