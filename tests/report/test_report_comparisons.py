"""The report's Comparisons section: every model against the best (or ``baseline``), with the
figures `lvlmbench compare` prints for the same store (hand-worked below); none for a
benchmark with a single model."""

from __future__ import annotations

from pathlib import Path

from compare_store import write_choice_store

from lvlmbench import api

# 20 items (0-9 easy, 10-19 hard): A right on all; B wrong on easy 4-9 and hard 19.
A = [1] * 20
B = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0] + [1] * 9 + [0]


def _section(html: str) -> str:
    start = html.index("<h3>Comparisons (accuracy)</h3>")
    return html[start : html.index("</p>", start)]


def test_the_section_compares_every_model_with_the_best(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    files = api.report(tmp_path / "r.html", store=str(db), gallery=0)
    section = _section(files.html.read_text("utf-8"))
    # B − A overall: 65 − 100 = −35 pp; McNemar counts 0 (B only) vs 7 (A only), p = 2/128;
    # Holm over the three rows (all, easy, hard): 0.015625 · 3 = 0.0469, 0.03125 · 2 = 0.0625.
    assert "<td>b vs a</td><td>all</td><td>65.0</td><td>100.0</td><td>-35.0 pp</td>" in section
    assert "<td>0.0156</td><td>0.0469</td><td>McNemar exact 0/7</td>" in section
    assert "<td>b vs a</td><td>easy</td>" in section and "<td>0.0625</td>" in section
    assert "adjusted by Holm" in section


def test_a_named_baseline_and_a_single_model(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    files = api.report(tmp_path / "r.html", store=str(db), gallery=0, baseline="b")
    assert "<td>a vs b</td><td>all</td><td>100.0</td><td>65.0</td><td>+35.0 pp</td>" in _section(
        files.html.read_text("utf-8")
    )
    alone = write_choice_store(tmp_path / "one.db", {"a": A})
    files = api.report(tmp_path / "one.html", store=str(alone), gallery=0)
    assert "Comparisons" not in files.html.read_text("utf-8")
