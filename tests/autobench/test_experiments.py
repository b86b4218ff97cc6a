"""The paper's experiments (autobench.experiments) with scripted examinees on items stored
through the store API: answer leakage and position bias, every expected figure worked out by
hand from the scripts."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes import ScriptedModel
from pngs import solid_png

from lvlmbench.autobench.experiments import (
    Target,
    bias_rate,
    leakage_figures,
    position_bias_figures,
    rekey_benchmark,
)
from lvlmbench.autobench.position_bias import bias_interval
from lvlmbench.models import ErrorKind, ModelClient, ProviderError
from lvlmbench.runner import run_examinee
from lvlmbench.store import (
    Store,
    get_benchmark,
    iter_items,
    iter_responses,
    put_benchmark,
    put_items,
)
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, Message, ModelOutput

BENCH = "exp"
N_MC = 8
N_TF = 2
COLOURS = ["red", "blue", "green", "black", "white", "orange", "purple", "grey", "pink", "brown"]


def _items(store: Store) -> list[BenchmarkItem]:
    """Eight mc items whose keys are all at "A" (as a biased examiner writes them) and two
    true/false items, each with its own image and description."""
    items = []
    for i in range(N_MC + N_TF):
        digest = store.put_image(solid_png(COLOURS[i]))
        common = {
            "id": f"item-{i:02d}",
            "benchmark": BENCH,
            "images": [digest],
            "caption": f"A {COLOURS[i]} square, scene number {i:02d}.",
            "meta": {"capability": "basic understanding", "difficulty": "easy"},
        }
        if i < N_MC:
            options = {
                "A": f"right {i:02d}",
                "B": f"wrong one {i:02d}",
                "C": f"wrong two {i:02d}",
                "D": f"wrong three {i:02d}",
            }
            item = BenchmarkItem(
                question=f"Which label fits picture {i:02d}?",
                kind="mc",
                options=options,
                answer="A",
                **common,
            )
        else:
            item = BenchmarkItem(
                question=f"Is picture {i:02d} a square?",
                kind="tf",
                answer="true" if i % 2 else "false",
                **common,
            )
        items.append(item)
    return items


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "s.db"))
    put_items(opened, _items(opened))
    put_benchmark(opened, BENCH, "autobench", {"capability": "basic understanding"})
    yield opened
    opened.close()


async def _run(store: Store, benchmark: str, model: ScriptedModel, variant: str) -> None:
    client = ModelClient(model, store)
    summary = await run_examinee(store, benchmark, client, variant=variant)
    assert summary.failed == 0 and summary.total == N_MC + N_TF


def _key_reply(item: BenchmarkItem) -> str:
    return f"Answer: {item.answer}" if item.kind == "mc" else str(item.answer)


def _wrong_reply(item: BenchmarkItem) -> str:
    if item.kind == "mc":
        return "Answer: " + next(k for k in sorted(item.options) if k != item.answer)
    return "false" if item.answer == "true" else "true"


def _describer(
    items: list[BenchmarkItem], knows: set[str]
) -> Callable[[list[Message]], ModelOutput]:
    """An examinee that is always right with the image, right from the description only on the
    items in ``knows``, and says it cannot tell from the question alone."""

    def answer(messages: list[Message]) -> ModelOutput:
        (message,) = messages
        text = message.text()
        (item,) = [it for it in items if it.question in text]
        if message.images():
            assert [p.sha256() for p in message.images()] == item.images
            return ModelOutput(text=_key_reply(item))
        assert item.caption is not None
        if item.caption in text:
            return ModelOutput(text=_key_reply(item) if item.id in knows else _wrong_reply(item))
        return ModelOutput(text="I don't know")

    return answer


async def test_leakage_figures_from_scripted_examinees(store: Store) -> None:
    items = list(iter_items(store, BENCH))
    ids = [item.id for item in items]
    # a knows 6 of 10 answers from the description (5 mc, 1 tf), b knows 2 (both mc).
    knows = {"fake/a": set(ids[:5] + ids[-1:]), "fake/b": set(ids[:2])}
    models = {spec: ScriptedModel(spec=spec) for spec in knows}
    for spec, model in models.items():
        model.steps = [_describer(items, knows[spec])] * 100
        for variant in ("default", "no-image", "question-only"):
            await _run(store, BENCH, model, variant)

    for model in models.values():
        # One call per item and variant, and only the default variant shows the image.
        assert len(model.calls) == 3 * len(items)
        assert sum(1 for call in model.calls if call[0].images()) == len(items)
    bare = list(iter_responses(store, model="fake/a", variant="question-only"))
    assert len(bare) == len(items) and all(r.status.value == "unparseable" for r in bare)

    figures, spread = leakage_figures(store, BENCH, ["fake/a", "fake/b"])
    a, b = figures
    assert (a.model, a.with_image, a.description_only, a.question_only) == (
        "fake/a",
        1.0,
        0.6,
        0.0,
    )
    assert (b.model, b.with_image, b.description_only, b.question_only) == (
        "fake/b",
        1.0,
        0.2,
        0.0,
    )
    assert a.drop == pytest.approx(0.4) and b.drop == pytest.approx(0.8)
    # Population std of (0.6, 0.2) is 0.2.
    assert spread == pytest.approx(0.2)
    assert spread == pytest.approx(statistics.pstdev([0.6, 0.2]))


async def test_leakage_without_question_only_runs_reports_none(store: Store) -> None:
    items = list(iter_items(store, BENCH))
    model = ScriptedModel(spec="fake/c")
    model.steps = [_describer(items, set())] * 100
    for variant in ("default", "no-image"):
        await _run(store, BENCH, model, variant)
    figures, spread = leakage_figures(store, BENCH, ["fake/c"])
    assert len(figures) == 1
    assert figures[0].with_image == 1.0
    assert figures[0].description_only == 0.0
    assert figures[0].question_only is None
    assert spread == 0.0


def test_bias_rate_is_the_spec_formula() -> None:
    # bias rate = (score_condition − score_even) / score_even
    assert bias_rate(0.5, 0.4) == pytest.approx(0.25)
    assert bias_rate(0.3, 0.4) == pytest.approx(-0.25)
    assert bias_rate(0.8, 0.2) == pytest.approx(3.0)
    assert bias_rate(0.4, 0.4) == 0.0


def test_rekeyed_copies_move_keys_and_keep_the_rest(store: Store) -> None:
    source = {item.id: item for item in iter_items(store, BENCH)}
    targets: tuple[Target, ...] = ("A", "D", "even")
    for target in targets:
        name = rekey_benchmark(store, BENCH, target, seed=3)
        assert name == f"{BENCH}@keys-{target}-s3"
        definition = get_benchmark(store, name)
        assert definition is not None
        assert definition.data.as_json() == {"source": BENCH, "target": target, "seed": 3}
        copies = list(iter_items(store, name))
        assert len(copies) == len(source)
        letters: Counter[str] = Counter()
        for copy in copies:
            original = source[copy.meta["rekeyed_from"]]
            assert copy.id != original.id and copy.benchmark == name
            assert (copy.question, copy.images, copy.caption, copy.kind) == (
                original.question,
                original.images,
                original.caption,
                original.kind,
            )
            if copy.kind == "tf":
                assert (copy.answer, copy.options) == (original.answer, original.options)
                continue
            assert copy.answer is not None and original.answer is not None
            # The key still names the right text; the same four texts are offered.
            assert copy.options[copy.answer] == original.options[original.answer]
            assert sorted(copy.options.values()) == sorted(original.options.values())
            assert sorted(copy.options) == ["A", "B", "C", "D"]
            letters[copy.answer] += 1
        expected = {"A": N_MC} if target == "A" else {"D": N_MC} if target == "D" else None
        assert letters == (expected or {"A": 2, "B": 2, "C": 2, "D": 2})
    # Re-keying again reuses the stored copy instead of adding items.
    before = store.count(tables.items)
    assert rekey_benchmark(store, BENCH, "A", seed=3) == f"{BENCH}@keys-A-s3"
    assert store.count(tables.items) == before
    # Another seed is another copy (it used to reuse seed 0's copies silently).
    other = rekey_benchmark(store, BENCH, "even", seed=99)
    assert other == f"{BENCH}@keys-even-s99"
    assert get_benchmark(store, other).data.seed == 99  # type: ignore[union-attr]
    assert store.count(tables.items) == before + N_MC + N_TF


async def test_an_examinee_that_always_says_A_shows_the_predicted_bias(store: Store) -> None:
    targets: tuple[Target, ...] = ("A", "D", "even")
    always_a = ScriptedModel(spec="fake/always-a", default_text="A")
    always_right = ScriptedModel(spec="fake/right")
    for target in targets:
        copy = rekey_benchmark(store, BENCH, target)
        always_right.steps = [_describer(list(iter_items(store, copy)), set())] * 100
        await _run(store, copy, always_a, "default")
        await _run(store, copy, always_right, "default")

    figures = position_bias_figures(store, BENCH, targets, ["fake/always-a", "fake/right"])
    got = {(f.model, f.target): (f.accuracy, f.even, f.rate) for f in figures}
    # By hand, over the 8 mc items only (the 2 true/false items are the same in every copy):
    # keys at A: 8/8 right; keys at D: 0/8; even (2 keys per letter): 2/8.
    # bias rate A = (1 − 0.25) / 0.25 = 3; D = (0 − 0.25) / 0.25 = −1.
    # (Counting the true/false items, which "A" gets wrong everywhere, diluted this to
    # 8/10 vs 2/10.)
    assert got[("fake/always-a", "A")] == pytest.approx((1.0, 0.25, 3.0))
    assert got[("fake/always-a", "D")] == pytest.approx((0.0, 0.25, -1.0))
    # An examinee that reads the image is not moved by where the keys sit.
    assert got[("fake/right", "A")] == (1.0, 1.0, 0.0)
    assert got[("fake/right", "D")] == (1.0, 1.0, 0.0)
    assert len(figures) == 4  # "even" is the baseline, not a condition
    for figure in figures:
        assert figure.n == N_MC
        assert figure.rate == pytest.approx(bias_rate(figure.accuracy, figure.even))
        assert figure.low <= figure.rate <= figure.high
    by = {(f.model, f.target): f for f in figures}
    # Always right in both copies: every resample gives rate 0.
    assert (by[("fake/right", "A")].low, by[("fake/right", "A")].high) == (0.0, 0.0)
    # Always wrong at D: every defined resample gives rate −1 exactly.
    assert (by[("fake/always-a", "D")].low, by[("fake/always-a", "D")].high) == (-1.0, -1.0)
    # At A the rate is 1/p − 1 for the resample's even accuracy p: the interval is wide.
    a = by[("fake/always-a", "A")]
    assert a.low < 3.0 < a.high and a.high - a.low > 2


def test_bias_interval_worked_by_hand() -> None:
    """Two items, paired: (condition, even) = (1, 1) and (1, 0). A resample draws two items
    with replacement: both item 1 (p = 1/4) → rate 0; one of each (p = 1/2) → condition 1, even
    1/2, rate 1; both item 2 (p = 1/4) → even 0, no rate. So the defined rates are 0 (1/3)
    and 1 (2/3): the 2.5 % point is 0 and the 97.5 % point is 1."""
    low, high = bias_interval([1.0, 1.0], [1.0, 0.0], resamples=4000)
    assert (low, high) == (0.0, 1.0)
    assert bias_interval([], []) == (0.0, 0.0)
    assert bias_interval([1.0], [0.0]) == (0.0, 0.0)  # even never right: no rate at all


async def test_failed_calls_and_tf_items_leave_n(store: Store) -> None:
    """n counts the mc items answered in both copies: a failed call drops its item."""
    targets: tuple[Target, ...] = ("A", "even")
    flaky = ScriptedModel(spec="fake/flaky", default_text="A")
    for target in targets:
        rekey_benchmark(store, BENCH, target)
    even_items = list(iter_items(store, f"{BENCH}@keys-even-s0"))
    # An item the even copy keys elsewhere than A: one keyed A there reads exactly as in the
    # all-A copy (each item's distractors keep one order across copies), so its answer would
    # come from the cache rather than from the failing call.
    first_mc = next(
        i for i in sorted(even_items, key=lambda i: i.id) if i.kind == "mc" and i.answer != "A"
    )

    def answer(messages: list[Message]) -> ModelOutput:
        if first_mc.question in messages[0].text():
            raise ProviderError("bad request", ErrorKind.FATAL, status_code=400)
        return ModelOutput(text="A")

    for target in targets:
        flaky.steps = [answer if target == "even" else (lambda _m: ModelOutput(text="A"))] * 100
        await run_examinee(store, f"{BENCH}@keys-{target}-s0", ModelClient(flaky, store))
    (figure,) = position_bias_figures(store, BENCH, targets, ["fake/flaky"])
    assert figure.n == N_MC - 1
    # even: the failed item is left out; 7 mc items remain, of which those keyed A are right.
    right = sum(i.answer == "A" for i in even_items if i.kind == "mc" and i.id != first_mc.id)
    assert figure.even == pytest.approx(right / (N_MC - 1))
    assert figure.accuracy == 1.0
