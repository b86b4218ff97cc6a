"""A new AutoBench-V stage is one class and one ``.then`` in the chain a back-end supplies.

The toy stage here sits between the self-check and the question: it rejects the first attempt
of every unit whose image digest starts with a digit. The pipeline must run it for every
attempt that reaches it, record its rejections like any other, and resume a run that died
inside it without running it again for the units that were already stored.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from lvlmbench.autobench._unit import Decision, UnitResult
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.autobench.stages import (
    AttemptContext,
    Checked,
    Draft,
    KeyAgrees,
    KeyMatch,
    Question,
    Rejected,
    Render,
    SelfCheck,
    Stage,
    Threshold,
    UnitChain,
    chain,
    standard_chain,
)
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.store import Store, get_artifact, iter_artifacts, iter_items

SETTINGS = GenerateSettings(
    capability="spatial understanding", name="toy-chain", n=1, m=2, per_aspect=2, seed=3
)
UNITS = SETTINGS.n * SETTINGS.m * SETTINGS.per_aspect * len(SETTINGS.levels)
TOY_REASON = "toy: first drafts whose digest starts with a digit are redrawn"


class Crash(Exception):
    """Stands for the process dying inside the toy stage."""


class DigitDigestRedraw(Stage[Checked, Checked]):
    """The toy stage: reject attempt 0 when the image's digest starts with a digit."""

    name = "toy"

    def __init__(self, crash_after: int | None = None) -> None:
        self.seen: list[tuple[str, int]] = []
        self.crash_after = crash_after

    async def run(self, ctx: AttemptContext, value: Checked) -> Checked | Rejected:
        if self.crash_after is not None and len(self.seen) >= self.crash_after:
            raise Crash
        self.seen.append((ctx.unit.key, ctx.attempt))
        if ctx.attempt == 0 and value.rendered.digest[0].isdigit():
            return Rejected(Decision.REJECT, TOY_REASON)
        return value


class ToyBackend(ProceduralBackend):
    """The procedural examiner with the toy stage after its self-check."""

    def __init__(self, toy: DigitDigestRedraw) -> None:
        super().__init__()
        self.toy = toy

    def stages(self) -> UnitChain:
        return (
            chain(Draft(self))
            .then(Render())
            .then(SelfCheck(self))
            .then(Threshold())
            .then(self.toy)
            .then(Question(self))
            .then(KeyMatch(self))
            .then(KeyAgrees())
        )


def _generate(store: Store, backend: ProceduralBackend) -> dict[str, Any]:
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> dict[str, Any]:
        try:
            return (await generate_benchmark(store, SETTINGS, backend, images)).as_json()
        finally:
            await images.aclose()

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LVLMBENCH_WORKERS", "0")
        return asyncio.run(run())


def _items(store: Store) -> list[tuple[str, str, str | None, list[str]]]:
    return sorted(
        (i.id, i.question, i.answer, i.images) for i in iter_items(store, SETTINGS.benchmark)
    )


def test_standard_chain_is_the_papers_order() -> None:
    names = standard_chain(ProceduralBackend()).names
    assert names == ["draft", "render", "self-check", "threshold", "question", "key check",
                     "key agrees"]  # fmt: skip


def test_the_pipeline_runs_an_inserted_stage(tmp_path: Path) -> None:
    toy = DigitDigestRedraw()
    store = Store.open(str(tmp_path / "toy.db"))
    report = _generate(store, ToyBackend(toy))
    units = list(iter_artifacts(store, SETTINGS.benchmark, "units"))
    assert len(units) == UNITS
    # Every attempt that passed the threshold (a threshold rejection has no reason) reached
    # the toy stage, and only those.
    passed = [
        (u["meta"]["unit"], h["attempt"])
        for u in units
        for h in u["history"]
        if "score" in h and not (h["decision"] == "reject" and "reason" not in h)
    ]
    assert sorted(toy.seen) == sorted(passed)
    # The typed unit results read and write the stored form unchanged.
    assert all(UnitResult.from_json(u).to_json() == u for u in units)
    assert {u["status"] for u in units} <= {"accepted", "dropped"}
    toy_rejections = [h for u in units for h in u["history"] if h.get("reason") == TOY_REASON]
    assert toy_rejections, "seed 3 must give the toy stage something to reject"
    # A toy rejection is recorded after the self-check's figures, like a failed self-check.
    assert all(h["decision"] == "reject" and "score" in h for h in toy_rejections)
    assert report["self_check"]["failure_reasons"][TOY_REASON] == len(toy_rejections)
    # The redraws it forced are the accepted items' later attempts.
    redrawn = {u["meta"]["unit"] for u in units for h in u["history"] if h in toy_rejections}
    for item in iter_items(store, SETTINGS.benchmark):
        if item.meta["unit"] in redrawn:
            assert item.meta["attempts"] >= 2


def test_a_run_killed_inside_the_new_stage_resumes(tmp_path: Path) -> None:
    whole = Store.open(str(tmp_path / "whole.db"))
    _generate(whole, ToyBackend(DigitDigestRedraw()))

    store = Store.open(str(tmp_path / "killed.db"))
    with pytest.raises(Crash):
        _generate(store, ToyBackend(DigitDigestRedraw(crash_after=UNITS // 2)))
    stored = {u["meta"]["unit"] for u in iter_artifacts(store, SETTINGS.benchmark, "units")}
    assert 0 < len(stored) < UNITS

    again = DigitDigestRedraw()
    _generate(store, ToyBackend(again))
    assert not {key for key, _ in again.seen} & stored, "a stored unit ran its stages again"
    assert _items(store) == _items(whole)
    for key in stored:
        assert get_artifact(store, SETTINGS.benchmark, "units", key) == get_artifact(
            whole, SETTINGS.benchmark, "units", key
        )
