"""VisIT-Bench as published: the human-verified reference from the released CSV layout, the
two-order combine rules, and the win rate vs reference worked by hand under both rules."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from fakes import ScriptedModel
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import judge as judge_cli
from lvlmbench.cli import judgments as judgments_cli
from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.judging import PAIRWISE, REFERENCE, pairwise_report
from lvlmbench.report.collect import benchmark_summary
from lvlmbench.report.render_ratings import pairwise_section
from lvlmbench.store import Store, iter_items, put_judgments, put_responses
from lvlmbench.types import Judgment, Message, ModelOutput, Response

BENCH = "visit"
JUDGE = "j/judge"
MODEL = "m/x"
runner = CliRunner()

# The released single-image CSV's columns (FORMATS.md), in its order.
HEADER = [
    "instruction_category",
    "instruction",
    "image",
    "image_url",
    "image_id",
    "reference_output",
    "gpt4_prediction",
    "instruction_conditioned_caption",
    "human_ratings_gpt4_correct",
    "human_ratings_problem_in_caption",
    "human_ratings_problem_in_gpt4",
    "public_images_metadata",
]
# Rows 1-4: people rated GPT-4's answer correct (spreadsheet exports write TRUE/True). Row 5:
# rated wrong, so it has no verified reference although both answer columns are filled.
VERIFIED = ["TRUE", "True", "TRUE", "true", "FALSE"]

# Per-order verdicts of the judge for the pair (m/x, reference) on items 1..5, in each order's
# own terms. Order "ab" shows m/x as Response A, order "ba" shows the reference as A.
#            ab     ba      winner ab / ba    majority    both
VERDICTS = [
    ("a", "b"),  # x / x            x wins      x wins
    ("tie", "b"),  # tie / x        x wins      tie
    ("a", "a"),  # x / ref          tie         tie       (position flip)
    ("b", "tie"),  # ref / tie      ref wins    tie
    ("a", "b"),  # x / x   item 5 has no verified reference: excluded under either rule
]
# Win rate vs reference over the 4 verified items, by hand:
#   majority: wins 2 (items 1, 2), losses 1 (item 4), ties 1 (item 3) -> 2 / 4 = 0.50
#   both:     wins 1 (item 1),     losses 0,          ties 3          -> 1 / 4 = 0.25
# Had item 5 been counted, majority would read 3 / 5 = 0.60.


def _write_csv(folder: Path) -> Path:
    rows = []
    for n, verified in enumerate(VERIFIED, start=1):
        Image.new("RGB", (8, 8), (40 * n, 10, 10)).save(folder / f"img{n}.png")
        rows.append(
            [
                "recognition",
                f"What is shown in picture {n}?",
                f"img{n}.png",
                f"img{n}.png",
                f"id{n}",
                f"label {n}",
                f"A full GPT-4 answer about picture {n}.",
                f"A red square, number {n}.",
                verified,
                "False",
                "False" if verified.lower() == "true" else "True",
                "{}",
            ]
        )
    path = folder / "visit_bench_single_image.csv"
    with path.open("w", newline="") as sink:
        writer = csv.writer(sink)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


def _judgments(ids: list[str]) -> list[Judgment]:
    out = []
    for item, (ab, ba) in zip(ids, VERDICTS, strict=True):
        orders = (("ab", (MODEL, REFERENCE), ab), ("ba", (REFERENCE, MODEL), ba))
        for order, shown, verdict in orders:
            out.append(
                Judgment(
                    item_id=item,
                    judge=JUDGE,
                    protocol=PAIRWISE,
                    model_a=shown[0],
                    model_b=shown[1],
                    order=order,
                    verdict=verdict,
                )
            )
    return out


@pytest.fixture
def store_path(tmp_path: Path) -> str:
    path = str(tmp_path / "s.db")
    store = Store.open(path)
    import_dataset(store, _write_csv(tmp_path), "visit", BENCH)
    ids = [item_id(BENCH, f"row-{n}") for n in range(1, 6)]
    put_responses(store, [Response(item_id=i, model=MODEL, text=f"answer {i}") for i in ids])
    # Item 5's judgments stand for rows judged before the reference was known to be unverified:
    # they must not count against a reference the item does not have.
    put_judgments(store, _judgments(ids))
    store.close()
    return path


def test_importer_keeps_only_the_verified_reference(store_path: str) -> None:
    store = Store.open(store_path)
    items = list(iter_items(store, BENCH))
    store.close()
    assert [i.reference for i in items] == [
        *(f"A full GPT-4 answer about picture {n}." for n in range(1, 5)),
        None,
    ]
    assert [i.meta["verified_reference"] for i in items] == [True] * 4 + [False]
    assert items[0].meta["reference_output"] == "label 1"  # the source label, kept aside
    assert items[4].meta["gpt4_prediction"] == "A full GPT-4 answer about picture 5."
    assert items[4].meta["human_ratings"]["gpt4_correct"] is False


@pytest.mark.parametrize(
    ("rule", "wins", "losses", "ties", "rate"),
    [
        ("majority", 2, 1, 1, 0.50),
        ("both", 1, 0, 3, 0.25),
    ],
)
def test_win_rate_vs_reference_by_hand(
    store_path: str, rule: str, wins: int, losses: int, ties: int, rate: float
) -> None:
    store = Store.open(store_path)
    report = pairwise_report(store, BENCH, JUDGE, combine=rule)  # type: ignore[arg-type]
    store.close()
    win = report.win_rates[MODEL]
    assert (win.wins, win.losses, win.ties) == (wins, losses, ties)
    assert win.rate == pytest.approx(rate)
    assert (report.items, report.items_without_reference) == (5, 1)
    assert report.pairs == 5 and report.unscored_pairs == 0  # item 5 still enters Elo
    data = report.as_dict()
    assert data["combine"] == rule and data["items_without_reference"] == 1
    assert data["category_win_rates"]["recognition"][MODEL] == pytest.approx(rate)


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("rate")(judgments_cli.rate)
    app.command("noop")(lambda: None)  # a second command keeps `rate` a subcommand
    return app


def test_rate_cli_combine_option(store_path: str) -> None:
    base = ["rate", BENCH, "--store", store_path]
    default = runner.invoke(_app(), [*base, "--json"])
    assert default.exit_code == 0, default.output
    data = json.loads(default.output)
    assert data["combine"] == "majority"
    assert data["win_rate_vs_reference"][MODEL]["rate"] == pytest.approx(0.5)
    strict = json.loads(runner.invoke(_app(), [*base, "--json", "--combine", "both"]).output)
    assert strict["combine"] == "both"
    assert strict["win_rate_vs_reference"][MODEL]["rate"] == pytest.approx(0.25)
    plain = runner.invoke(_app(), [*base, "--combine", "both"])
    assert plain.exit_code == 0, plain.output
    assert "combined: both" in plain.output
    assert "1 of 5 items have no verified reference" in " ".join(plain.output.split())
    bad = runner.invoke(_app(), [*base, "--combine", "wins-both"])
    assert bad.exit_code == 2 and "--combine must be one of majority, both" in bad.output


def test_report_shows_rule_and_exclusions(store_path: str) -> None:
    store = Store.open(store_path)
    bench = benchmark_summary(store, BENCH)
    store.close()
    (rep,) = bench["pairwise"]
    assert rep["combine"] == "majority" and rep["items_without_reference"] == 1
    assert rep["win_rate_vs_reference"][MODEL]["rate"] == pytest.approx(0.5)
    html = pairwise_section(bench)
    assert 'data-combine="majority"' in html
    assert "1 of 5 items have no verified reference" in html


def _shown_first_or_tie(messages: list[Message]) -> ModelOutput:
    """Prefers the model when it is shown first, and calls it a tie when the reference is."""
    text = messages[-1].text()
    shown_first = text.split("Response A:", 1)[1].split("Response B:", 1)[0]
    return ModelOutput(text="[[A]]" if "MODELTEXT" in shown_first else "[[tie]]")


def test_judge_pairwise_prints_and_returns_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    import_dataset(store, _write_csv(tmp_path), "visit", BENCH)
    ids = [item_id(BENCH, f"row-{n}") for n in range(1, 6)]
    put_responses(store, [Response(item_id=i, model=MODEL, text=f"MODELTEXT {i}") for i in ids])
    store.close()
    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(
        judge_cli,
        "load_chat_model",
        lambda spec, **_: ScriptedModel(steps=[_shown_first_or_tie] * 100, spec=spec),
    )
    app = typer.Typer()
    app.add_typer(judge_cli.judge_app, name="judge")
    app.command("noop")(lambda: None)
    args = ["judge", "pairwise", BENCH, "-m", MODEL, "-j", JUDGE, "--reference-free"]
    args += ["--store", str(tmp_path / "s.db"), "--json"]
    # m/x vs the reference on the 4 verified items: a win for m/x in order ab, a tie in ba.
    for rule, rate in (("majority", 1.0), ("both", 0.0)):
        result = runner.invoke(app, [*args, "--combine", rule])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert data["run"]["missing"] == 2  # item 5 has no reference to play: both orders
        ratings = data["ratings"]
        assert ratings["combine"] == rule and ratings["items_without_reference"] == 1
        win = ratings["win_rate_vs_reference"][MODEL]
        assert (win["rate"], win["matches"]) == (rate, 4)
