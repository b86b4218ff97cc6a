"""The human-votes section of a benchmark: how many votes by whom, the ratings they give (raw
Bradley-Terry, win rate vs reference and online Elo), the style-controlled ratings beside the
raw ones with the style coefficients, and each judge's agreement with the people.

Its number cells carry ``data-judge="human"`` besides the attributes the judges' sections use,
so a page showing both can tell them apart.
"""

from __future__ import annotations

from html import escape
from typing import Any

from lvlmbench.report._html import fmt, table, td
from lvlmbench.report.render_ratings import ratings_table
from lvlmbench.report.render_style import style_block
from lvlmbench.report.summary import BenchmarkSummary

__all__ = ["human_section"]


def _intro(entry: dict[str, Any], benchmark: str) -> str:
    rep = entry["ratings"]
    who = ", ".join(entry["annotators"]) or "none"
    text = (
        f"{_votes(entry['votes'])} by {len(entry['annotators'])} annotator(s) ({who}) on "
        f"{rep['pairs']} pairs ({rep['unscored_pairs']} without a usable vote). Every vote is "
        "one match (a person sees one order, so there is nothing to combine). Bradley-Terry on "
        "the Elo scale (400 points = 10:1 odds, mean rating 1000) with a 95% bootstrap interval "
        f"over {entry['rounds']} rounds, seed {entry['seed']}: the numbers "
    )
    if entry.get("excluded"):
        text = (
            f"Not counted: {_votes(entry['excluded_votes'])} by "
            f"{', '.join(entry['excluded'])}, excluded by the owner. " + text
        )
    command = f"lvlmbench rate {benchmark} -j human --style-control"
    return (
        f'<p class="note" data-human-votes="{entry["votes"]}">{escape(text)}'
        f"<code>{escape(command)}</code> prints.</p>"
    )


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _agreement_table(rows: list[dict[str, Any]], **tags: str) -> str:
    """One row per judge: pairs both judged, agreement with the human majority, Cohen's kappa
    and Kendall tau between the two system rankings ('' without rows)."""
    if not rows:
        return ""
    body = [
        [
            td(r["judge"]),
            td(r["protocol"]),
            td(str(r["pairs"])),
            td(_share(r["agreement"]), agreement=r["judge"], **tags),
            td(fmt(r["kappa"], 2)),
            td(fmt(r.get("ranking_tau"), 2)),
        ]
        for r in rows
    ]
    head = ["judge", "protocol", "pairs", "agreement with people %", "Cohen's kappa"]
    return table([*head, "Kendall tau (rankings)"], body, "agreement")


_AGREEMENT_NOTE = (
    "Agreement of each judge's verdict with the majority of the votes on the pairs both judged "
    "(judge ties as coin flips); kappa over the pairs where both chose a side; tau between the "
    "systems ranked by the judge's wins and by the people's on those pairs: the numbers "
)


def _human_one(entry: dict[str, Any], benchmark: str) -> list[str]:
    rep = entry["ratings"]
    title = f"Human votes ({_votes(entry['votes'])}, {rep['pairs']} pairs)"
    out = [f"<h3>{escape(title)}</h3>", _intro(entry, benchmark)]
    if rep["online_elo"]:  # else no vote was usable: the notes below say so
        out.append(ratings_table(rep, judge="human"))
    out.append(style_block(rep, judge="human"))
    out.append("<h4>Judges' agreement with the votes</h4>")
    rows = entry["agreement"]
    if rows:
        command = escape(f"lvlmbench agreement {benchmark} -j JUDGE")
        group = escape(str((entry.get("agreement_annotators") or {}).get("group", "")))
        said = escape(entry.get("agreement_annotators_said") or "")
        note = (
            f'<p class="note">{escape(_AGREEMENT_NOTE)}<code>{command}</code> prints. '
            f'<span data-annotators="{group}">{said}.</span></p>'
        )
        out.append(note + _agreement_table(rows, judge="human"))
        out.append(_corrected_block(entry.get("ppi") or [], benchmark))
    else:
        out.append('<p class="note">No judge has judged the voted pairs.</p>')
    for note in [rep.get("bt_note"), *rep.get("warnings", [])]:
        if note:
            out.append(f'<p class="note">{escape(note)}</p>')
    return out


_PPI_NOTE = (
    "Win rate vs the reference three ways: the judge's on every item it judged, the people's on "
    "the voted items (the share of an item's votes the model wins, averaged over items), and "
    "PPI++ (Angelopoulos et al. 2023): the judge's figure corrected by the judge-human gap on "
    "the voted items, valid when they are a random sample of the judged ones. 95% intervals, "
    "clipped to 0-100%; labels: the voted items used. The figures "
)


def _interval(value: dict[str, Any] | None) -> str:
    if value is None:
        return "-"
    return f"{_share(value['estimate'])} [{_share(value['low'])}, {_share(value['high'])}]"


def _corrected_block(figures: list[dict[str, Any]], benchmark: str) -> str:
    """Per judge and model: judge, people and PPI++ win rates ('' without any)."""
    if not figures:
        return ""
    body = [
        [
            td(f["judge"]),
            td(f["subject"]),
            td(str(f["n_items"])),
            td(_interval(f["judge_only"])),
            td(str(f["n_labels"])),
            td(_interval(f["human_only"])),
            td(f["refused"] or _interval(f["corrected"]), ppi=f["subject"], ppi_judge=f["judge"]),
            td(fmt(f["lambda"], 2)),
        ]
        for f in figures
    ]
    head = ["judge", "model", "items", "judge %", "labels", "people %", "PPI++ %", "lambda"]
    command = escape(f"lvlmbench agreement {benchmark} -j JUDGE")
    note = f'<p class="note">{escape(_PPI_NOTE)}<code>{command}</code> prints.</p>'
    return note + table(head, body, "ppi")


def human_section(bench: BenchmarkSummary) -> str:
    """The section for the benchmark's votes ('' when it has none)."""
    entries = bench.get("human") or []
    return "".join(part for entry in entries for part in _human_one(entry, bench["name"]))


def _votes(count: int) -> str:
    return f"{count} vote" if count == 1 else f"{count} votes"
