"""An overall accuracy over part of a benchmark says which part, and a model that answered only
part of the report's capabilities is not ranked by a mean over that part."""

from __future__ import annotations

import re
from pathlib import Path

from quiz_store import write_quiz

from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.report.collect import collect
from lvlmbench.report.leaderboard import leaderboard_markdown, leaderboard_rows, write_leaderboards
from lvlmbench.report.render_summary import summary_section
from lvlmbench.store import Store, iter_items, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response


def _answers(items: list[BenchmarkItem], model: str, right_every: int) -> list[Response]:
    """``model``'s answers: right on every item whose position is not a multiple of
    ``right_every`` (0: right on all)."""
    out = []
    for n, item in enumerate(items):
        assert item.answer is not None
        wrong = right_every and n % right_every == 0
        said = ("B" if item.answer == "A" else "A") if wrong else item.answer
        out.append(Response(item_id=item.id, model=model, text=said, extracted=said))
    return out


def _store(tmp_path: Path) -> Store:
    # Two benchmarks of 12 items (levels easy/medium/hard in turn). "part" answered only the
    # easy items of the first, all right; "full" answered every item, 3 of 4 right (9 of 12
    # on each benchmark: positions 0, 4, 8 wrong).
    store = Store.open(str(write_quiz(tmp_path / "s.db", "first", 12)))
    first = sorted(iter_items(store, "first"), key=lambda i: i.id)
    second = [i.model_copy(update={"id": f"2-{i.id}", "benchmark": "second"}) for i in first]
    put_benchmark(store, "second", "autobench", {})
    put_items(store, second)
    easy = [i for i in first if i.meta["difficulty"] == "easy"]
    put_responses(store, _answers(easy, "part", 0))
    put_responses(store, _answers(first, "full", 4) + _answers(second, "full", 4))
    return store


def test_overall_over_part_of_the_levels_says_so(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        bench = benchmark_summary(store, "first")
    finally:
        store.close()
    overall = {r["model"]: r for r in bench["overall"]}
    # part: 4 easy items all right, 100 % over 1 of the 3 levels; full covers all of them.
    assert (overall["part"]["accuracy"], overall["part"]["items"]) == (100.0, 4)
    assert overall["part"]["covers"] == ["1 of 3 difficulty levels"]
    assert overall["full"]["covers"] == []
    html = render_benchmark(bench)
    assert '<td data-model="part" data-covers="overall">1 of 3 difficulty levels</td>' in html
    assert '<td data-model="full" data-covers="overall">all</td>' in html


def test_summary_ranks_no_model_by_a_mean_over_part_of_the_columns(tmp_path: Path) -> None:
    # Columns "colour (first)" and "colour (second)". full: 75 and 75, mean 75. part: 100 on
    # the first column only; a mean over its one column (100) ranked it first before.
    store = _store(tmp_path)
    try:
        data = collect(store)
    finally:
        store.close()
    html = summary_section(data["benchmarks"])
    order = re.findall(r"<tr><td>([a-z]+)<", html)
    assert order == ["full", "part"], html
    # "part" answered 4 of the first benchmark's 12 items: flagged as the leaderboard flags it.
    assert "first: partial: answered 4 of 12 items, not ranked" in html


def test_leaderboard_flags_a_partial_row_and_ranks_it_after_full_runs(tmp_path: Path) -> None:
    # On "first" (12 keyed items): part answered the 4 easy items, all right (100.0); full
    # answered all 12, 9 right (75.0). Before, part sat first at 100.0 with nothing said.
    store = _store(tmp_path)
    try:
        data = collect(store, ["first"])
    finally:
        store.close()
    rows = leaderboard_rows(data)
    assert [(r.model, r.value("accuracy")) for r in rows] == [("full", 75.0), ("part", 100.0)]
    assert rows[0].value("coverage") == "all 12 items"
    assert rows[1].value("coverage") == "partial: answered 4 of 12 items, not ranked"
    markdown = leaderboard_markdown(data)
    part_line = next(line for line in markdown.splitlines() if line.startswith("| part |"))
    assert "partial: answered 4 of 12 items, not ranked" in part_line
    assert "only models that answered every keyed item are ranked" in markdown
    csv_text = (write_leaderboards(data, tmp_path)[0]).read_text(encoding="utf-8")
    assert "coverage" in csv_text.splitlines()[0].split(",")


def test_only_full_runs_are_ranked_on_the_items_they_all_answered(tmp_path: Path) -> None:
    # "full" (9 of 12) and "also" (all 12 right) answered every item of "first"; "part" only
    # its 4 easy items. Ranked with "part", the common set shrank to those 4 easy items (where
    # full and also are both right on 3 and 4); now it is all 12, and "part" holds no rank.
    store = _store(tmp_path)
    try:
        first = sorted(iter_items(store, "first"), key=lambda i: i.id)
        put_responses(store, _answers(first, "also", 0))
        bench = benchmark_summary(store, "first")
    finally:
        store.close()
    overall = {r["model"]: r for r in bench["overall"]}
    assert "rank" not in overall["part"]
    assert overall["also"]["rank"] == 1 and overall["full"]["rank"] == 2
    assert overall["also"]["rank_items"] == overall["full"]["rank_items"] == 12
