"""The evaluation runner: items from the store, one examinee through ModelClient, resumable."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fakes import ScriptedModel
from pngs import solid_png
from sqlalchemy import delete, event

from lvlmbench.models import ErrorKind, ModelClient, ProviderError, RunAborted
from lvlmbench.runner import item_messages, run_examinee
from lvlmbench.store import Store, iter_responses, put_items, response_id
from lvlmbench.store import _schema as tables
from lvlmbench.types import (
    BenchmarkItem,
    GenerationConfig,
    ImagePart,
    Message,
    ModelOutput,
    Response,
    Status,
    Usage,
)

BENCH = "runner-bench"
COLOURS = ("red", "blue", "green", "yellow")
_TAG = re.compile(r"\[(q\d+)\]")


def _items(store: Store, count: int, bench: str = BENCH) -> list[BenchmarkItem]:
    """``count`` items cycling mc, tf and open ones; item i's question carries the tag [qi]."""
    items = []
    for i in range(count):
        colour = COLOURS[i % len(COLOURS)]
        image = store.put_image(solid_png(colour))
        common = {
            "id": f"{bench}-{i}",
            "benchmark": bench,
            "images": [image],
            "caption": f"A {colour} square on its own (picture {i}).",
        }
        if i % 3 == 0:
            item = BenchmarkItem(
                question=f"[q{i}] What colour is the square?",
                kind="mc",
                options=dict(zip("ABCD", COLOURS, strict=True)),
                answer="ABCD"[i % len(COLOURS)],
                **common,
            )
        elif i % 3 == 1:
            item = BenchmarkItem(
                question=f"[q{i}] The square is {colour}.", kind="tf", answer="true", **common
            )
        else:
            item = BenchmarkItem(
                question=f"[q{i}] Describe the picture.", kind="open", reference="x", **common
            )
        items.append(item)
    put_items(store, items)
    return items


@dataclass
class Examinee(ScriptedModel):
    """Answers by the item tag in the prompt (``replies``, else ``default_text``); records the
    tags it was asked. ``block_after``: later calls never return (a run stuck mid-way)."""

    replies: dict[str, str | ProviderError] = field(default_factory=dict)
    block_after: int | None = None
    completed: int = 0
    blocked: int = 0
    asked: list[str] = field(default_factory=list)

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        if self.block_after is not None and self.completed >= self.block_after:
            self.blocked += 1
            await asyncio.Event().wait()
        match = _TAG.search(messages[-1].text())
        assert match is not None
        reply = self.replies.get(match.group(1), self.default_text)
        step = reply if isinstance(reply, ProviderError) else ModelOutput(text=reply)
        if isinstance(step, ModelOutput):
            step = step.model_copy(update={"usage": Usage(input_tokens=30, output_tokens=3)})
        self.steps.append(step)
        self.asked.append(match.group(1))
        try:
            return await super().generate(messages, config)
        finally:
            self.completed += 1


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "runner.db"))
    yield opened
    opened.close()


def _responses(
    store: Store, model: str = "fake/scripted", variant: str = "default"
) -> dict[str, Response]:
    return {r.item_id: r for r in iter_responses(store, model=model, variant=variant)}


def _bad_request() -> ProviderError:
    return ProviderError("HTTP 400: image too large", ErrorKind.FATAL, status_code=400)


async def test_answers_are_extracted_and_stored(store: Store) -> None:
    items = _items(store, 3)
    model = Examinee(replies={"q0": "The answer is A.", "q1": "False.", "q2": "A red square."})
    summary = await run_examinee(store, BENCH, ModelClient(model, store))

    assert sorted(model.asked) == ["q0", "q1", "q2"]
    assert (summary.total, summary.ok, summary.unparseable, summary.failed) == (3, 3, 0, 0)
    assert summary.skipped == 0 and summary.requests == 3 and summary.reasons == {}
    stored = _responses(store)
    assert set(stored) == {i.id for i in items}
    mc, tf, open_ = (stored[i.id] for i in items)
    assert (mc.extracted, mc.status, mc.text) == ("A", Status.OK, "The answer is A.")
    assert (tf.extracted, tf.status) == ("false", Status.OK)  # wrong, but read as written
    assert (open_.extracted, open_.status, open_.text) == (None, Status.OK, "A red square.")
    assert mc.usage == Usage(input_tokens=30, output_tokens=3)
    assert mc.variant == "default" and mc.model == "fake/scripted"
    assert store.get_row(tables.responses, response_id(items[0].id, "fake/scripted")) is not None


async def test_unparseable_answers_are_recorded_never_guessed(store: Store) -> None:
    items = _items(store, 2)
    model = Examinee(replies={"q0": "A or C, I think.", "q1": "It could be true or false."})
    summary = await run_examinee(store, BENCH, ModelClient(model, store))
    assert (summary.ok, summary.unparseable, summary.failed) == (0, 2, 0)
    for item in items:
        response = _responses(store)[item.id]
        assert response.status is Status.UNPARSEABLE and response.extracted is None
        assert response.reason and response.text
    assert sum(summary.reasons.values()) == 2


async def test_errors_are_asked_again_next_run_but_final_answers_are_not(store: Store) -> None:
    items = _items(store, 4)
    first = Examinee(
        replies={"q0": "B", "q1": "no idea", "q2": _bad_request(), "q3": _bad_request()}
    )
    summary = await run_examinee(store, BENCH, ModelClient(first, store))
    assert (summary.ok, summary.unparseable, summary.failed) == (1, 1, 2)
    assert summary.reasons == {"HTTP 400: image too large": 2, "no true/false answer found": 1}
    stored = _responses(store)
    assert stored[items[2].id].status is Status.ERROR and stored[items[2].id].extracted is None
    assert "image too large" in (stored[items[2].id].reason or "")

    # Next run: only the two errors are asked (neither from the cache: errors are not cached).
    second = Examinee(replies={"q2": "A red square.", "q3": "C"})
    client = ModelClient(second, store)
    summary = await run_examinee(store, BENCH, client)
    assert sorted(second.asked) == ["q2", "q3"]
    assert (summary.skipped, summary.ok, summary.failed, summary.cache_hits) == (2, 2, 0, 0)
    stored = _responses(store)
    assert [stored[i.id].status for i in items] == [
        Status.OK,
        Status.UNPARSEABLE,
        Status.OK,
        Status.OK,
    ]
    assert stored[items[3].id].extracted == "C"
    assert store.count(tables.responses) == 4  # replaced in place, not duplicated

    third = Examinee()
    summary = await run_examinee(store, BENCH, ModelClient(third, store))
    assert third.asked == [] and summary.skipped == 4 and summary.requests == 0


async def test_resume_after_interruption_asks_only_the_missing_items(store: Store) -> None:
    items = _items(store, 9)
    stuck = Examinee(default_text="B", block_after=4)
    finished_items: list[int] = []
    task = asyncio.create_task(
        run_examinee(
            store,
            BENCH,
            ModelClient(stuck, store),
            on_progress=lambda done, _total: finished_items.append(done),
        )
    )
    # Wait for the stuck call AND for the 4 answered items to be handed to the writer: their
    # cache rows commit asynchronously, and cancelling before that (a loaded machine) would
    # leave a paid answer in the cache with no response row, which is not what is tested here.
    while stuck.blocked == 0 or len(finished_items) < 4:
        assert not task.done()
        await asyncio.sleep(0.002)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = set(stuck.asked[:4])
    saved = _responses(store)
    assert {r.item_id for r in saved.values()} == {f"{BENCH}-{t[1:]}" for t in finished}

    resumed = Examinee(default_text="B")
    summary = await run_examinee(store, BENCH, ModelClient(resumed, store))
    # Calls that were in flight when the run stopped are asked again; finished ones are not.
    assert sorted(resumed.asked) == sorted({f"q{i}" for i in range(9)} - finished)
    assert summary.skipped == 4 and summary.cache_hits == 0
    assert set(_responses(store)) == {i.id for i in items}


async def test_lost_responses_are_rebuilt_from_the_cache_without_requests(store: Store) -> None:
    """A kill before the buffered responses were written loses no paid call."""
    _items(store, 5)
    await run_examinee(store, BENCH, ModelClient(Examinee(default_text="D"), store))
    before = _responses(store)
    with store.engine.begin() as conn:
        conn.execute(delete(tables.responses))
    again = Examinee(default_text="something else")
    summary = await run_examinee(store, BENCH, ModelClient(again, store))
    assert again.asked == [] and summary.cache_hits == 5 and summary.requests == 0
    rebuilt = _responses(store)
    # The same answers, now marked as replayed from the cache (the item page shows which).
    assert all(r.cached is True for r in rebuilt.values())
    assert all(r.cached is False and r.cache_key for r in before.values())
    assert {k: r.model_copy(update={"cached": False}) for k, r in rebuilt.items()} == before


async def test_variants_show_image_description_or_question_only(store: Store) -> None:
    items = _items(store, 3)
    items_without_caption = [
        BenchmarkItem(
            id="plain", benchmark="plain", question="[q9] Pick one.", kind="mc", options={"A": "x"}
        )
    ]
    put_items(store, items_without_caption)
    mc = items[0]
    caption = mc.caption or ""
    assert caption
    prompts: dict[str, list[Message]] = {}
    for variant in ("default", "no-image", "question-only"):
        prompts[variant] = item_messages(store, variant)(mc)
    (default,), (no_image,), (question_only,) = prompts.values()

    images = default.images()
    assert len(images) == 1 and images[0].read_bytes() == store.read_image(mc.images[0])
    assert isinstance(default.content[0], ImagePart)  # the image comes before the question
    assert "[q0] What colour is the square?" in default.text() and "B. blue" in default.text()
    assert caption not in default.text()
    assert no_image.images() == [] and caption in no_image.text()
    assert default.text() in no_image.text()
    assert question_only.images() == [] and question_only.text() == default.text()
    # An item without a description has nothing to replace its image with.
    plain = items_without_caption[0]
    assert item_messages(store, "no-image")(plain) == item_messages(store, "question-only")(plain)
    with pytest.raises(ValueError, match="unknown variant 'blind'"):
        item_messages(store, "blind")

    model = Examinee(default_text="A")
    client = ModelClient(model, store)
    for variant in ("default", "no-image", "question-only"):
        summary = await run_examinee(store, BENCH, client, variant=variant)
        assert summary.total == 3 and summary.skipped == 0
    # Different messages, so different cache entries: every (item, variant) was asked.
    assert len(model.calls) == 9 and client.stats.cache_hits == 0
    with_images = [call for call in model.calls if any(m.images() for m in call)]
    assert len(with_images) == 3
    for variant in ("default", "no-image", "question-only"):
        stored = _responses(store, variant=variant)
        assert set(stored) == {i.id for i in items}
        assert all(r.variant == variant for r in stored.values())
    assert store.count(tables.responses) == 9


async def test_bad_key_aborts_the_run_and_keeps_what_finished(store: Store) -> None:
    items = _items(store, 6)
    revoked = ProviderError(
        "HTTP 401: invalid key", ErrorKind.FATAL, status_code=401, hint="check the key"
    )
    model = Examinee(default_text="A", replies={"q3": revoked})
    with pytest.raises(RunAborted, match="check the key"):
        await run_examinee(store, BENCH, ModelClient(model, store, concurrency=1))
    assert model.asked == ["q0", "q1", "q2", "q3"]  # one worker: the store's order
    saved = _responses(store)
    assert set(saved) == {i.id for i in items[:3]}
    assert all(r.status is not Status.ERROR for r in saved.values())

    fixed = Examinee(default_text="A")
    summary = await run_examinee(store, BENCH, ModelClient(fixed, store))
    assert sorted(fixed.asked) == ["q3", "q4", "q5"] and summary.skipped == 3


async def test_abort_with_many_workers_is_the_error_itself(store: Store) -> None:
    _items(store, 12)
    model = Examinee(
        default_text="A",
        delay=0.001,
        replies={"q5": ProviderError("HTTP 403: no access", ErrorKind.FATAL, status_code=403)},
    )
    with pytest.raises(RunAborted, match="no access"):  # not an ExceptionGroup
        await run_examinee(store, BENCH, ModelClient(model, store, concurrency=4))
    saved: dict[str, Response] = _responses(store)
    assert "q5" in model.asked and f"{BENCH}-5" not in saved
    assert 0 < len(saved) < 12 and all(r.status is not Status.ERROR for r in saved.values())


async def test_the_next_item_is_asked_before_the_previous_answer_is_recorded(store: Store) -> None:
    """One call in flight at a time: item 2's request goes out as soon as item 1's answer is
    cached, before item 1's response is scored and recorded (that bookkeeping is done while
    the next request is out, not in its way). Every answer is still stored."""
    items = _items(store, 3)
    events: list[str] = []

    class Recording(Examinee):
        async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
            events.append("asked " + messages[-1].text().split("]")[0].lstrip("["))
            return await super().generate(messages, config)

    def progress(done: int, _total: int) -> None:
        events.append(f"recorded {done}")

    model = Recording(default_text="A")
    client = ModelClient(model, store, concurrency=1)
    await run_examinee(store, BENCH, client, on_progress=progress)
    assert events[:3] == ["asked q0", "asked q1", "recorded 1"]
    assert sorted(events) == [
        *(f"asked q{i}" for i in range(3)),
        *(f"recorded {n}" for n in (1, 2, 3)),
    ]
    assert set(_responses(store)) == {i.id for i in items}


async def test_cache_rows_are_looked_up_once_per_claimed_batch_not_per_item(store: Store) -> None:
    # 4 calls in flight: items are claimed 8 at a time (two workers per call), and each batch's
    # cache rows are read in one query, so 40 items cost 5 lookups, not 40.
    _items(store, 40)
    lookups: list[str] = []

    def record(*args: object) -> None:
        statement = str(args[2]).lstrip().upper()
        if statement.startswith("SELECT") and "FROM CACHE" in statement:
            lookups.append(statement)

    event.listen(store.engine, "before_cursor_execute", record)
    model = Examinee(default_text="A", delay=0.001)
    summary = await run_examinee(store, BENCH, ModelClient(model, store, concurrency=4))
    assert summary.requests == 40 and len(_responses(store)) == 40
    assert len(lookups) == 5
    # Replayed: the same 40 from the cache, in as few queries, nothing asked.
    with store.engine.begin() as conn:
        conn.execute(delete(tables.responses))
    again = await run_examinee(store, BENCH, ModelClient(Examinee(), store, concurrency=4))
    assert again.cache_hits == 40 and again.requests == 0 and len(lookups) == 10
