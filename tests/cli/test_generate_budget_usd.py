"""``generate --budget-usd``: generation in rounds under a cap in US dollars, through the real
CLI and store. A scripted model examiner (every call 50 input + 20 output tokens: $0.009 at
price=100,200) and a painter image model (price=0.01 per image) are registered as providers, so
the examiner's tokens and the images are priced from their specs; with the procedural examiner
the money is the priced baselines' answers. The cap is kept, the report splits the money, a re-run
pays nothing and stops at the same place, both caps together stop at the first reached, and a spec
without a price is refused before the store is written."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pytest
from examiner_fakes import ScriptedExaminer
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.images import IMAGE_PROVIDERS, ImageOutput, ImageRequest
from lvlmbench.models import CHAT_PROVIDERS, Provider, register_chat_provider
from lvlmbench.models.providers import OPENAI_IMAGE_OPTIONS
from lvlmbench.store import Store, iter_benchmark_responses

runner = CliRunner()
NAME = "spatial-understanding-s0"
CALL_USD = (50 * 100 + 20 * 200) / 1e6
IMAGE_USD = 0.01
EXAMINER = "scripted/examiner?price=100,200"
PAINTER = "painter/p?price=0.01"
SCRIPTED_PLAN = ["spatial understanding", "-n", "1", "-k", "2", "--per-aspect", "3"]
SCRIPTED_PLAN += ["--levels", "easy,hard", "--k-checks", "2", "--first-round", "4"]
SCRIPTED = [*SCRIPTED_PLAN, "--examiner", EXAMINER, "--images", PAINTER, "--mode", "text"]
SCRIPTED_UNITS = 1 * 2 * 2 * 3
PROCEDURAL = ["spatial understanding", "-n", "2", "-k", "2", "--per-aspect", "10"]
PROCEDURAL += ["--levels", "easy,hard", "--seed", "0", "--first-round", "8"]
PROCEDURAL_UNITS = 2 * 2 * 2 * 10
BASELINE_PRICE = (1000.0, 2000.0)
RANDOM, ORACLE = "baseline/random?price=1000,2000", "baseline/oracle?price=1000,2000"
COMPARE = ["--model", RANDOM, "--model", ORACLE, "--until", "compare"]


class Painter:
    """A text-to-image model drawing a square whose shade comes from the prompt."""

    def __init__(self, name: str, options: Mapping[str, str]) -> None:
        self.spec, self.endpoint = f"painter/{name}", "fake://painter"

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "painter"}

    async def generate(self, request: ImageRequest) -> ImageOutput:
        shade = sum(request.prompt.encode()) % 200
        buffer = io.BytesIO()
        Image.new("RGB", (request.width, request.height), (shade, 40, 90)).save(buffer, "PNG")
        return ImageOutput(png=buffer.getvalue())

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module", autouse=True)
def _providers() -> Iterator[None]:
    """``scripted/…`` (a chat provider: the scripted examiner) and ``painter/…`` (an image
    provider taking the OpenAI image options, ``price`` included)."""
    register_chat_provider(
        "scripted",
        lambda name, options: ScriptedExaminer(),
        options=CHAT_PROVIDERS["baseline"].options,
    )
    images = cast(dict[str, Provider], IMAGE_PROVIDERS)
    images["painter"] = Provider(None, None, OPENAI_IMAGE_OPTIONS, factory=Painter)
    yield
    del CHAT_PROVIDERS["scripted"], images["painter"]


def _run(db: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["generate", *args, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _answers_usd(db: Path) -> dict[str, float]:
    """What the stored answers cost, per item, at the baselines' price."""
    store = Store.open(str(db))
    try:
        costs: dict[str, float] = {}
        for r in iter_benchmark_responses(store, NAME):
            usd = (
                r.usage.input_tokens * BASELINE_PRICE[0] + r.usage.output_tokens * BASELINE_PRICE[1]
            )
            costs[r.item_id] = costs.get(r.item_id, 0.0) + usd / 1e6
        return costs
    finally:
        store.close()


def _without(budget: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in budget.items() if k not in keys}


def test_examiner_and_images_are_priced_and_the_cap_kept(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    budget = _run(db, *SCRIPTED, "--budget-usd", "0.3")["budget"]
    money = budget["money"]
    built = budget["units_built"]
    assert 0 < built < SCRIPTED_UNITS and budget["stopped_by_budget"]
    # Fresh work: the money is the requests counted at the specs' prices, split exactly.
    renders = round(money["images_usd"] / IMAGE_USD)
    assert renders >= built and money["images_usd"] == pytest.approx(renders * IMAGE_USD)
    examiner_calls = budget["generation_calls"] - renders
    assert money["examiner_usd"] == pytest.approx(examiner_calls * CALL_USD)
    assert money["used_usd"] == pytest.approx(money["examiner_usd"] + money["images_usd"])
    assert money["examinees_usd"] == 0 and money["cap_usd"] == 0.3
    assert money["paid_usd"] == pytest.approx(money["used_usd"]) == money["paid_generation_usd"]
    # Within the cap (every unit here costs the same), and the next unit would not fit.
    assert money["used_usd"] <= 0.3 < money["used_usd"] + money["unit_mean_usd"]
    assert money["full_estimate_usd"] == pytest.approx(
        money["used_usd"] + (SCRIPTED_UNITS - built) * money["unit_mean_usd"]
    )
    again = _run(db, *SCRIPTED, "--budget-usd", "0.3")["budget"]
    assert again["requests"] == 0 and again["money"]["paid_usd"] == 0
    paid = ("paid_usd", "paid_generation_usd")
    assert _without(again, "requests", "money") == _without(budget, "requests", "money")
    assert _without(again["money"], *paid) == _without(money, *paid)
    more = _run(db, *SCRIPTED, "--budget-usd", "0.5")["budget"]  # a larger cap continues
    assert more["units_built"] > built
    assert more["money"]["paid_usd"] == pytest.approx(more["money"]["used_usd"] - money["used_usd"])


@pytest.mark.parametrize(("cap", "units"), [("0.01", 0), ("0.05", 1)])
def test_a_cap_below_one_unit_is_passed_by_the_plan_or_the_first_unit_alone(
    tmp_path: Path, cap: str, units: int
) -> None:
    """The documented exceptions: the plan ($0.036 here) is made whatever the cap (a cap it
    spends gets no unit), and a unit's cost is learned by building one ($0.055 here)."""
    budget = _run(tmp_path / "s.db", *SCRIPTED, "--budget-usd", cap)["budget"]
    assert budget["units_built"] == units and budget["stopped_by_budget"]
    money = budget["money"]
    assert money["used_usd"] == pytest.approx(4 * CALL_USD + units * (5 * CALL_USD + IMAGE_USD))


def test_the_human_report_states_the_money(tmp_path: Path) -> None:
    args = ["generate", *SCRIPTED, "--budget-usd", "0.3", "--store", str(tmp_path / "s.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "money: $0.2560 used of a cap of $0.3000 (generation $0.2560: examiner $0.2160, " in text
    assert "images $0.0400; examinees $0.0000); $0.2560 paid by this run" in text
    assert f"the full plan ({SCRIPTED_UNITS} units) would cost about $0.6960 (an estimate:" in text


def test_until_counts_the_examinees_answers_against_the_cap(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    report = _run(db, *PROCEDURAL, *COMPARE, "--budget-usd", "1")
    budget, money = report["budget"], report["budget"]["money"]
    costs = _answers_usd(db)
    assert len(costs) == budget["items_used"] == budget["units_built"] < PROCEDURAL_UNITS
    # The procedural examiner and renderer are free: the money is the answers'.
    assert money["generation_usd"] == 0
    assert (
        money["used_usd"]
        == pytest.approx(money["examinees_usd"])
        == pytest.approx(sum(costs.values()))
    )
    assert money["paid_usd"] == pytest.approx(money["used_usd"])
    assert money["paid_examinees_usd"] == pytest.approx(sum(r["cost_usd"] for r in report["runs"]))
    # Stopped by the money: within the cap, and the dearest item seen would not have fitted.
    assert budget["stopped_by_budget"] and "the budget is spent" in budget["decision"]
    assert money["used_usd"] <= 1 < money["used_usd"] + max(costs.values())
    again = _run(db, *PROCEDURAL, *COMPARE, "--budget-usd", "1")
    assert again["budget"]["requests"] == 0 and again["budget"]["money"]["paid_usd"] == 0
    same = ("decision", "items_used", "units_built", "decision_rounds", "p_value")
    assert {k: again["budget"][k] for k in same} == {k: budget[k] for k in same}
    assert again["budget"]["money"]["used_usd"] == pytest.approx(money["used_usd"])


def test_priced_specs_without_a_cap_report_the_money(tmp_path: Path) -> None:
    budget = _run(tmp_path / "s.db", *PROCEDURAL, *COMPARE)["budget"]
    money = budget["money"]
    assert money["cap_usd"] is None and money["used_usd"] > 0
    assert money["used_usd"] == pytest.approx(money["examinees_usd"])


@pytest.mark.parametrize(
    ("calls", "usd", "by_calls"),
    [("30", "100", True), ("1000", "0.5", False)],
)
def test_the_first_cap_reached_stops(tmp_path: Path, calls: str, usd: str, by_calls: bool) -> None:
    args = [*PROCEDURAL, *COMPARE, "--concurrency", "1"]
    budget = _run(tmp_path / "s.db", *args, "--budget", calls, "--budget-usd", usd)["budget"]
    money = budget["money"]
    assert budget["stopped_by_budget"] and budget["units_built"] < PROCEDURAL_UNITS
    # Each unit here is one render and its item two answers: one unit in flight can pass.
    assert budget["calls"] <= int(calls) + 3 and money["used_usd"] <= float(usd)
    if by_calls:
        assert budget["calls"] >= int(calls) - 3 and money["used_usd"] < float(usd) / 10
    else:
        assert budget["calls"] < int(calls) / 10
        assert money["used_usd"] > float(usd) - 2 * money["full_estimate_usd"] / PROCEDURAL_UNITS


def _responses(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        count: int = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    return count


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            [*SCRIPTED_PLAN, "--examiner", "scripted/examiner", "--images", PAINTER],
            "--examiner 'scripted/examiner' has no price; give it one in the spec as "
            "'scripted/examiner?price=IN,OUT'",
        ),
        (
            [*SCRIPTED_PLAN, "--examiner", EXAMINER, "--images", "painter/p?size=64x64"],
            "--images 'painter/p?size=64x64' has no price; give it one in the spec as "
            "'painter/p?size=64x64&price=USD_PER_IMAGE' (US dollars per image",
        ),
        (
            # A model that makes paid calls (baseline/… ones are free and need no price).
            [*PROCEDURAL, "--model", "scripted/examinee", "--model", ORACLE, "--until", "compare"],
            "--model 'scripted/examinee' has no price",
        ),
        ([*PROCEDURAL, "--budget-usd", "0"], "--budget-usd 0.0: expected an amount"),
        ([*PROCEDURAL, "--budget-usd", "nan"], "--budget-usd nan: expected an amount"),
    ],
)
def test_a_missing_price_or_a_bad_cap_exits_2_before_the_store_is_written(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    db = tmp_path / "s.db"
    extra = [] if "--budget-usd" in args else ["--budget-usd", "1"]
    mode = ["--mode", "text"] if "--images" in args else []
    result = runner.invoke(app, ["generate", *args, *mode, *extra, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert not db.exists()
