"""The judge runners end to end with scripted judges: both orders, combination, resume, reports."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fakes import ScriptedModel

from lvlmbench.judging import (
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    SCORE,
    combine_orders,
    hallucination_report,
    human_agreement,
    make_references,
    model_family,
    pair_records,
    pairwise_report,
    reference_name,
    run_hallucination,
    run_pairwise,
    run_score,
    score_report,
    self_preference_warnings,
)
from lvlmbench.models import ModelClient
from lvlmbench.store import (
    Store,
    iter_items,
    iter_judgments,
    iter_responses,
    put_items,
    put_judgments,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Judgment, Message, ModelOutput, Response, Status

BENCH = "judge-bench"
MODELS = ("m/good", "m/bad")


def _world(tmp_path: Path, n: int = 3) -> Store:
    store = Store.open(str(tmp_path / "s.db"))
    items = [
        BenchmarkItem(
            id=f"it{i}",
            benchmark=BENCH,
            question=f"[it{i}] What is on the table?",
            caption=f"A red apple on a wooden table (picture {i}).",
            reference=f"A red apple. REF{i}",
            category="recognition" if i % 2 == 0 else "description",
            meta={"task_name": f"task{i % 2}"},
        )
        for i in range(n)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=m, text=f"{'GOOD' if 'good' in m else 'BAD'} answer")
            for item in items
            for m in MODELS
        ],
    )
    return store


def _sections(messages: list[Message]) -> tuple[str, str]:
    text = messages[-1].text()
    a = re.search(r'Response A:\n"""\n(.*?)\n"""', text, re.S)
    b = re.search(r'Response B:\n"""\n(.*?)\n"""', text, re.S)
    assert a and b
    return a.group(1), b.group(1)


def _quality(answer: str) -> int:
    return 3 if "REF" in answer else 2 if "GOOD" in answer else 1


def fair_judge(messages: list[Message]) -> ModelOutput:
    a, b = _sections(messages)
    qa, qb = _quality(a), _quality(b)
    verdict = "A" if qa > qb else "B" if qb > qa else "tie"
    return ModelOutput(text=f"Reasoning step by step...\n[[{verdict}]]")


def _client(store: Store, fn: Callable[[list[Message]], ModelOutput], spec: str) -> ScriptedModel:
    return ScriptedModel(steps=[fn] * 1000, spec=spec)


async def test_both_orders_always_run_and_resume_makes_no_calls(tmp_path: Path) -> None:
    store = _world(tmp_path)
    judge = _client(store, fair_judge, "fake/judge")
    client = ModelClient(judge, store, concurrency=4)
    summary = await run_pairwise(
        store, BENCH, list(MODELS), client, include_reference=False, reference_backed=False
    )
    assert len(judge.calls) == 3 * 2  # 3 items x 1 pair x 2 orders
    assert summary.ok == 6 and summary.total == 6 and summary.unparseable == 0
    rows = list(iter_judgments(store, protocol=PAIRWISE))
    assert sorted(r.order for r in rows) == ["ab"] * 3 + ["ba"] * 3
    for r in rows:  # model_a is the model shown first; the verdict is about that presentation
        assert r.verdict == ("a" if r.model_a == "m/good" else "b")
    again = await run_pairwise(store, BENCH, list(MODELS), ModelClient(judge, None))
    assert len(judge.calls) == 6 and again.skipped == 6 and again.requests == 0


async def test_winner_only_if_it_wins_both_orders(tmp_path: Path) -> None:
    store = _world(tmp_path)
    always_a = ScriptedModel(default_text="Clearly [[A]]", spec="fake/biased")
    await run_pairwise(store, BENCH, list(MODELS), ModelClient(always_a, store))
    report = pairwise_report(store, BENCH, "fake/biased")
    records = pair_records(store, BENCH, "fake/biased", PAIRWISE)
    assert [r.result() for r in records] == ["tie"] * 3  # a position-biased judge picks no winner
    assert report.diagnostics is not None
    assert report.diagnostics.first_position.rate == 1.0
    assert report.diagnostics.position.flip_rate == 1.0


def test_combine_orders_table() -> None:
    def row(order: str, verdict: str | None, status: Status = Status.OK) -> Judgment:
        shown = ("x", "y") if order == "ab" else ("y", "x")
        return Judgment(
            item_id="i",
            judge="j",
            protocol=PAIRWISE,
            model_a=shown[0],
            model_b=shown[1],
            order=order,
            verdict=verdict,
            status=status,
        )

    assert combine_orders(row("ab", "a"), row("ba", "b")) == "a"  # x wins both
    assert combine_orders(row("ab", "b"), row("ba", "a")) == "b"  # y wins both
    assert combine_orders(row("ab", "a"), row("ba", "a")) == "tie"  # position flip
    # VisIT-Bench's released rule (the default since "published"): a tie plus a win for x
    # ("ba" shows y first, so its verdict 'b' is x) is a win for x; "both" calls it a tie.
    assert combine_orders(row("ab", "tie"), row("ba", "b")) == "a"
    assert combine_orders(row("ab", "tie"), row("ba", "b"), "both") == "tie"
    assert combine_orders(row("ab", "b"), row("ba", "tie")) == "b"
    assert combine_orders(row("ab", "tie"), row("ba", "tie")) == "tie"
    assert combine_orders(row("ab", "a"), row("ba", "a"), "both") == "tie"
    assert combine_orders(row("ab", "a"), row("ba", "b"), "both") == "a"
    assert combine_orders(row("ab", "a"), row("ba", None, Status.UNPARSEABLE)) is None
    assert combine_orders(row("ab", "tie"), row("ba", None, Status.REFUSED)) is None
    assert combine_orders(row("ab", "a"), None) is None


async def test_unparseable_is_counted_never_scored(tmp_path: Path) -> None:
    store = _world(tmp_path)

    def flaky(messages: list[Message]) -> ModelOutput:
        if "[it1]" in messages[-1].text():
            return ModelOutput(text="Both have merits and flaws in different ways.")
        return fair_judge(messages)

    client = ModelClient(_client(store, flaky, "fake/flaky"), store)
    summary = await run_pairwise(store, BENCH, list(MODELS), client)
    assert summary.unparseable == 2 and summary.ok == 4
    stored = [j for j in iter_judgments(store, protocol=PAIRWISE) if j.status is Status.UNPARSEABLE]
    assert len(stored) == 2 and all(j.verdict is None for j in stored)
    report = pairwise_report(store, BENCH, "fake/flaky")
    assert report.pairs == 3 and report.unscored_pairs == 1
    assert report.statuses == {"ok": 4, "unparseable": 2}
    # a second run does not re-ask unparseable rows (they are final), errors would be re-asked
    again = await run_pairwise(
        store, BENCH, list(MODELS), ModelClient(ScriptedModel(spec="fake/flaky"), None)
    )
    assert again.skipped == 6 and again.requests == 0


async def test_errors_are_redone(tmp_path: Path) -> None:
    store = _world(tmp_path, n=1)
    failing = ScriptedModel(
        steps=[ModelOutput(status=Status.ERROR, reason="boom")] * 2, spec="fake/judge"
    )
    first = await run_pairwise(store, BENCH, list(MODELS), ModelClient(failing, store))
    assert first.failed == 2
    healed = _client(store, fair_judge, "fake/judge")
    second = await run_pairwise(store, BENCH, list(MODELS), ModelClient(healed, store))
    assert second.ok == 2 and len(healed.calls) == 2


async def test_reference_player_win_rates_and_categories(tmp_path: Path) -> None:
    store = _world(tmp_path, n=4)
    client = ModelClient(_client(store, fair_judge, "fake/judge"), store)
    summary = await run_pairwise(store, BENCH, list(MODELS), client, include_reference=True)
    assert summary.ok == 4 * 3 * 2
    report = pairwise_report(store, BENCH, "fake/judge", rounds=50)
    assert report.win_rates["m/good"].rate == 0.0 and report.win_rates["m/good"].matches == 4
    assert set(report.category_win_rates) == {"recognition", "description"}
    assert report.online_elo is not None
    for elo in (report.online_elo.in_order, report.online_elo.shuffled):
        assert elo[REFERENCE] > elo["m/good"] > elo["m/bad"]
    assert report.bradley_terry is not None


async def test_reference_backed_shows_reference(tmp_path: Path) -> None:
    store = _world(tmp_path, n=1)
    judge = _client(store, fair_judge, "fake/judge")
    await run_pairwise(store, BENCH, list(MODELS), ModelClient(judge, store), reference_backed=True)
    assert all("REF0" in m[-1].text() for m in judge.calls)
    assert {j.protocol for j in iter_judgments(store)} == {PAIRWISE_REF}
    with pytest.raises(ValueError, match="cannot also play"):
        await run_pairwise(
            store,
            BENCH,
            list(MODELS),
            ModelClient(judge, store),
            reference_backed=True,
            include_reference=True,
        )


def test_self_preference_guard() -> None:
    assert model_family("openai/gpt-4o") == "gpt"
    assert model_family("google/gemma-3-4b") == "gemma"
    assert model_family("acme/thing") is None
    warnings = self_preference_warnings("openai/gpt-4o", ["openai/gpt-4o-mini", "anthropic/claude"])
    assert len(warnings) == 1 and "gpt-4o-mini" in warnings[0]
    assert self_preference_warnings("acme/judge", ["openai/gpt-4o"]) == []


async def test_run_warns_on_same_family(tmp_path: Path) -> None:
    store = _world(tmp_path, n=1)
    put_responses(store, [Response(item_id="it0", model="openai/gpt-4o", text="GOOD")])
    client = ModelClient(_client(store, fair_judge, "openai/gpt-4.1"), store)
    summary = await run_pairwise(store, BENCH, ["m/good", "openai/gpt-4o"], client)
    assert summary.warnings and "gpt" in summary.warnings[0]
    report = pairwise_report(store, BENCH, "openai/gpt-4.1")
    assert report.diagnostics is not None and report.diagnostics.self_preference is not None


async def test_human_agreement(tmp_path: Path) -> None:
    store = _world(tmp_path, n=2)
    await run_pairwise(
        store, BENCH, list(MODELS), ModelClient(_client(store, fair_judge, "fake/judge"), store)
    )
    votes = []
    for k, verdict in enumerate(["a", "a", "a", "b", "b"]):  # it0: 3/5 for m/good (shown as a)
        votes.append(
            Judgment(
                item_id="it0",
                judge=f"human:{k}",
                protocol="human",
                model_a="m/good",
                model_b="m/bad",
                verdict=verdict,
            )
        )
    for k in range(5):  # it1: 5/5 for m/bad, stored the other way round
        votes.append(
            Judgment(
                item_id="it1",
                judge=f"human:{k}",
                protocol="human",
                model_a="m/good",
                model_b="m/bad",
                verdict="b",
            )
        )
    votes.append(
        Judgment(
            item_id="it1",
            judge="human:9",
            protocol="human",
            model_a="m/bad",
            model_b="m/good",
            verdict="tie",
        )
    )
    put_judgments(store, votes)
    result = human_agreement(store, BENCH, "fake/judge")
    assert result.pairs == 2 and result.human_ties_dropped == 1
    assert result.report is not None
    assert result.report.levels["3/5"].coin_flip_agree == 1
    assert result.report.levels["5/5"].coin_flip_agree == 0
    # Two systems: the judge ranks good > bad, people split 1-1, so no ranking to compare.
    assert result.ranking_tau is None


async def test_score_judge_averages_orders_and_reports_x100(tmp_path: Path) -> None:
    store = _world(tmp_path, n=2)
    writer = ScriptedModel(default_text="A red apple (caption-assisted).", spec="fake/writer")
    ref_summary = await make_references(store, BENCH, ModelClient(writer, store))
    assert ref_summary.ok == 2 and len(writer.calls) == 2
    assert "wooden table" in writer.calls[0][0].text()
    again = await make_references(store, BENCH, ModelClient(writer, store))
    assert again.skipped == 2 and len(writer.calls) == 2
    reference = reference_name("fake/writer")
    assert {r.model for r in iter_responses(store)} >= {reference}

    # item it0: model shown first gets 6, ref 8; swapped: ref 9, model 4 -> model 5, ref 8.5
    # item it1: 8/7 and 7/9 -> model 8.5, ref 7. Mean model 6.75 -> 675; ref 7.75 -> 775.
    table = {("it0", "ab"): "6 8", ("it0", "ba"): "9 4", ("it1", "ab"): "8 7", ("it1", "ba"): "7 9"}

    def scorer(messages: list[Message]) -> ModelOutput:
        text = messages[-1].text()
        item = re.search(r"\[(it\d)\]", text)
        assert item
        first = text.index("Assistant 1's Answer]")
        order = "ba" if "caption-assisted" in text[first : first + 80] else "ab"
        return ModelOutput(text=table[(item.group(1), order)] + "\nExplanation...")

    judge = _client(store, scorer, "fake/scorer")
    summary = await run_score(
        store, BENCH, ["m/good"], ModelClient(judge, store), reference=reference
    )
    assert summary.ok == 4 and len(judge.calls) == 4
    items = {i.id: i for i in iter_items(store, BENCH)}
    report = score_report(iter_judgments(store, protocol=SCORE), reference, items)
    good = report["m/good"]
    assert good.overall.items == 2 and good.overall.mean == pytest.approx(6.75)
    assert good.overall.x100 == pytest.approx(675.0)
    assert good.overall.reference_x100 == pytest.approx(775.0)
    assert good.overall.relative == pytest.approx(100 * 13.5 / 15.5)
    assert good.abilities["recognition"].x100 == pytest.approx(500.0)
    assert good.tasks["task1"].x100 == pytest.approx(850.0)


async def test_score_unparseable_is_unscored(tmp_path: Path) -> None:
    store = _world(tmp_path, n=2)
    replies = iter(["7 5", "no scores here", "5 5", "6 6"])
    judge = ScriptedModel(steps=[lambda _m: ModelOutput(text=next(replies))] * 4, spec="fake/s")
    summary = await run_score(
        store, BENCH, ["m/good"], ModelClient(judge, store, concurrency=1), reference=REFERENCE
    )
    assert summary.unparseable == 1
    items = {i.id: i for i in iter_items(store, BENCH)}
    report = score_report(iter_judgments(store, protocol=SCORE), REFERENCE, items)
    assert report["m/good"].unscored == 1 and report["m/good"].overall.items == 1


async def test_hallucination_judge(tmp_path: Path) -> None:
    store = _world(tmp_path, n=2)

    def rater(messages: list[Message]) -> ModelOutput:
        bad = "BAD answer" in messages[-1].text()
        return ModelOutput(text=f"Invented: ...\nHallucination score: {8 if bad else 2}")

    judge = _client(store, rater, "fake/rater")
    summary = await run_hallucination(store, BENCH, list(MODELS), ModelClient(judge, store))
    assert summary.ok == 4
    report = hallucination_report(iter_judgments(store), {"it0", "it1"})
    assert report["m/good"].mean == 2 and report["m/bad"].mean == 8
    again = await run_hallucination(store, BENCH, list(MODELS), ModelClient(judge, store))
    assert again.skipped == 4 and len(judge.calls) == 4


async def test_missing_answers_are_counted(tmp_path: Path) -> None:
    store = _world(tmp_path, n=2)
    client = ModelClient(_client(store, fair_judge, "fake/judge"), store)
    summary = await run_pairwise(store, BENCH, ["m/good", "m/absent"], client)
    assert summary.missing == 4 and summary.ok == 0


def test_ranking_tau_compares_judge_and_human_system_rankings() -> None:
    from lvlmbench.judging.judge_vs_human import _ranking_tau

    pairs = [
        (("x", "y"), "A", ["A", "A", "B"]),  # both: x beats y
        (("x", "z"), "A", ["A", "A"]),  # both: x beats z
        (("y", "z"), "A", ["B", "B"]),  # judge: y beats z; people: z beats y
        (("y", "z"), None, ["A"]),  # unscored by the judge: left out
    ]
    # judge x 1, y 0.5, z 0; people x 1, y 0, z 0.5: 2 concordant, 1 discordant pair of systems
    assert _ranking_tau(pairs) == pytest.approx(1 / 3)


async def test_the_next_judge_call_goes_out_before_the_previous_judgment_is_stored(
    tmp_path: Path,
) -> None:
    # One call in flight: the second prompt is already built and waiting for the slot, so it
    # is sent as soon as the first answer is cached, before that judgment is tallied and stored.
    store = _world(tmp_path, n=2)
    events: list[str] = []

    def judged(messages: list[Message]) -> ModelOutput:
        events.append("asked")
        return fair_judge(messages)

    def progress(done: int, _total: int) -> None:
        events.append(f"stored {done}")

    client = ModelClient(_client(store, judged, "fake/judge"), store, concurrency=1)
    summary = await run_pairwise(store, BENCH, list(MODELS), client, on_progress=progress)
    assert events[:3] == ["asked", "asked", "stored 1"]
    assert events.count("asked") == 4 and summary.ok == 4
    assert len(list(iter_judgments(store, protocol=PAIRWISE))) == 4
