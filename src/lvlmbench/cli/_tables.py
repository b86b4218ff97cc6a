"""Rich tables shared by the commands that print accuracy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

from lvlmbench.choice.accuracy import AccuracyRow, group_coverage, overall_rows
from lvlmbench.choice.ranks import RANK_RESAMPLES, RANK_SEED, AccuracyRanks
from lvlmbench.models import display_names
from lvlmbench.ratings import Coverage
from lvlmbench.stats import estimate_fields, format_interval, format_ranks, interval_note

__all__ = ["accuracy_cell", "accuracy_pivot", "accuracy_rows_json", "overall_json"]


_LEVEL_ORDER = {"easy": "0", "medium": "1", "hard": "2"}


def _group_order(group: tuple[str, ...]) -> tuple[str, ...]:
    # Difficulty levels read easy → medium → hard, not alphabetically.
    return tuple(_LEVEL_ORDER.get(part, part) for part in group)


def accuracy_cell(row: AccuracyRow) -> str:
    if row.no_key and not row.answered:  # every answer awaits the benchmark's own server
        return "[dim]no key[/]"
    low, high = row.interval
    return f"{100 * row.accuracy:5.1f} [dim]({format_interval(low, high, scale=100)})[/]"


def _overall_cell(row: AccuracyRow, covered: Coverage | None) -> str:
    # An overall over part of the groups is not the benchmark's overall: say which part.
    if covered is None or covered.complete:
        return accuracy_cell(row)
    return f"{accuracy_cell(row)}\n[yellow]{covered.text()}[/]"


@dataclass(frozen=True)
class _CountColumns:
    """The count columns after the groups; which of them a table shows depends on its rows."""

    sampled: bool
    """--epochs K: each item's accuracy is the mean over its K answers."""
    clustered: bool
    """Some items share a cluster: how many clusters the interval rests on."""
    llm_read: bool
    """Only when an LLM extractor read some answers."""
    unkeyed: bool
    """A TEST split: answers kept for the benchmark's server, not scored here."""
    truncated: bool
    """Cut by the token limit: "read" ones scored as usual, unread ones wrong."""

    @classmethod
    def of(cls, rows: Sequence[AccuracyRow]) -> _CountColumns:
        return cls(
            sampled=any(row.epochs > 1 for row in rows),
            clustered=any(row.score.clusters for row in rows),
            llm_read=any(row.llm_read for row in rows),
            unkeyed=any(row.no_key for row in rows),
            truncated=any(row.truncated for row in rows),
        )

    def headers(self) -> list[str]:
        return [
            "items",
            *(["clusters"] if self.clustered else []),
            *(["epochs", "answers"] if self.sampled else []),
            "unparseable",
            "failed",
            *(["read by LLM"] if self.llm_read else []),
            *(["no key"] if self.unkeyed else []),
            *(["truncated (unread)"] if self.truncated else []),
        ]

    def cells(self, present: Sequence[AccuracyRow]) -> list[str]:
        return [
            str(sum(r.items for r in present)),
            *([str(_clusters(present))] if self.clustered else []),
            *(
                [_epochs_cell(present), str(sum(r.answered for r in present))]
                if self.sampled
                else []
            ),
            str(sum(r.unparseable for r in present)),
            str(sum(r.failed for r in present)),
            *([str(sum(r.llm_read for r in present))] if self.llm_read else []),
            *([str(sum(r.no_key for r in present))] if self.unkeyed else []),
            *([_truncated_cell(present)] if self.truncated else []),
        ]


def accuracy_pivot(
    rows: Sequence[AccuracyRow],
    title: str,
    groups: Sequence[tuple[str, ...]] | None = None,
    noun: str = "groups",
    ranks: AccuracyRanks | None = None,
    keyed: int | None = None,
) -> Table:
    """Models as rows, groups as columns, accuracy % with its 95% interval over items per cell
    (clustered where items share a source; the caption says by what, and the ``clusters``
    column how many). ``groups``: every group of the benchmark's keyed items (default: those in
    ``rows``); a model's overall over fewer of them says how many ("2 of 3 ``noun``").
    ``ranks``: a rank column (each model's 95% rank interval, "1–2"), best first. ``keyed``:
    the keyed items asked; a model that answered fewer is flagged "partial" under its name
    (and is not ranked)."""
    expected = list(groups) if groups is not None else [row.group for row in rows]
    shown_groups = sorted({*expected, *(row.group for row in rows)}, key=_group_order)
    models = sorted({(row.model, row.variant) for row in rows})
    cells = {(row.model, row.variant, row.group): row for row in rows}
    shown = display_names(model for model, _ in models)
    table = Table(title=title, title_justify="left")
    table.add_column("model")
    for group in shown_groups:
        table.add_column(" / ".join(group) or "accuracy %", justify="right")
    # With several groups, the pooled accuracy over all of them, so no one adds columns by eye.
    several = len(shown_groups) > 1
    pooled = {(r.model, r.variant): r for r in overall_rows(rows)}
    overall = pooled if several else {}
    covered = group_coverage(rows, expected, noun) if several else {}
    if overall:
        table.add_column("overall", justify="right", style="bold")
    if ranks is not None:
        table.add_column("rank", justify="right")
        models.sort(key=lambda m: _rank_order(ranks, m))
    table.caption = interval_note(
        [r.estimate for r in (*rows, *overall.values()) if not (r.no_key and not r.answered)]
    ) + (_rank_note(ranks) if ranks is not None else "")
    table.caption_justify = "left"
    counts = _CountColumns.of(rows)
    for header in counts.headers():
        table.add_column(header, justify="right")
    for model, variant in models:
        mine = [cells.get((model, variant, g)) for g in shown_groups]
        label = shown[model] if variant == "default" else f"{shown[model]} [{variant}]"
        got = pooled[model, variant].items if (model, variant) in pooled else 0
        if keyed and got < keyed:  # a figure over part of the benchmark never reads as a full one
            label += f"\n[yellow]partial: {got} of {keyed} items, not ranked[/]"
        table.add_row(
            label,
            *(accuracy_cell(r) if r else "-" for r in mine),
            *(
                [_overall_cell(overall[model, variant], covered.get((model, variant)))]
                if overall
                else []
            ),
            *([_rank_cell(ranks, model, variant)] if ranks is not None else []),
            *counts.cells([r for r in mine if r is not None]),
        )
    return table


def _truncated_cell(rows: Sequence[AccuracyRow]) -> str:
    return f"{sum(r.truncated for r in rows)} ({sum(r.truncated_unread for r in rows)})"


def _rank_order(ranks: AccuracyRanks, key: tuple[str, str]) -> tuple[int, str, str]:
    found = ranks.of(key[0]) if key[1] == "default" else None
    return (found.rank if found else len(ranks.ranks) + 1, key[0], key[1])


def _rank_cell(ranks: AccuracyRanks, model: str, variant: str) -> str:
    found = ranks.of(model) if variant == "default" else None
    return "-" if found is None else format_ranks(found.low, found.high)


def _rank_note(ranks: AccuracyRanks) -> str:
    resampled = (
        f"the {ranks.items} items"
        if ranks.cluster == "item"  # items alone: "1050 clusters (item)" says nothing more
        else f"the {ranks.clusters} clusters ({ranks.cluster}) of the {ranks.items} items"
    )
    return (
        f"; rank: the ranks a model holds in 95% of {RANK_RESAMPLES} resamples of "
        f"{resampled} every ranked model answered (seed {RANK_SEED}); overlapping ranges "
        "are tied; only models that answered every keyed item are ranked"
    )


def _clusters(rows: Sequence[AccuracyRow]) -> int:
    """The clusters a model's items fall in across its cells (a cluster spanning two cells
    counts once: the overall interval's G)."""
    shared = {key for r in rows for key, *_ in r.score.clusters}
    return len(shared) + sum(count for r in rows for _, count in r.score.singles)


def _epochs_cell(rows: Sequence[AccuracyRow]) -> str:
    counts = sorted({round(r.epochs, 2) for r in rows})
    return "/".join(f"{c:g}" for c in counts)


def accuracy_rows_json(rows: Sequence[AccuracyRow], by: Sequence[str]) -> list[dict[str, object]]:
    """Rows as plain dicts for --json and summary files: the accuracy and its interval are
    over items (``items`` of them in ``clusters`` clusters of ``cluster``, ``epochs`` answers
    each; ``estimator``, ``confidence`` and ``adjustment`` say how); the counts are of
    answers."""
    out: list[dict[str, object]] = []
    for row in rows:
        out.append(
            {
                "model": row.model,
                "variant": row.variant,
                **dict(zip(by, row.group, strict=True)),
                "accuracy": row.accuracy,
                **estimate_fields(row.estimate),
                "epochs": row.epochs,
                "correct": row.correct,
                "answered": row.answered,
                "unparseable": row.unparseable,
                "failed": row.failed,
                "read_by_llm": row.llm_read,
                "no_key": row.no_key,
                "truncated": row.truncated,
                "truncated_unread": row.truncated_unread,
            }
        )
    return out


def overall_json(
    rows: Sequence[AccuracyRow],
    groups: Sequence[tuple[str, ...]],
    noun: str = "groups",
    ranks: AccuracyRanks | None = None,
) -> list[dict[str, object]]:
    """Each model's overall row for --json, with which of the benchmark's ``groups`` it
    covers (``coverage``: present, expected, complete, missing) and, given ``ranks``, its rank
    interval (``rank``, ``rank_low``, ``rank_high``, ``tied_with``, ``rank_method``)."""
    covered = group_coverage(rows, groups, noun)
    overall = overall_rows(rows)
    return [
        {
            **entry,
            "coverage": covered[row.model, row.variant].as_dict(),
            **_rank_json(ranks, row.model, row.variant),
        }
        for row, entry in zip(overall, accuracy_rows_json(overall, []), strict=True)
    ]


def _rank_json(ranks: AccuracyRanks | None, model: str, variant: str) -> dict[str, object]:
    found = ranks.of(model) if ranks is not None and variant == "default" else None
    if ranks is None or found is None:
        return {}
    return {
        "rank": found.rank,
        "rank_low": found.low,
        "rank_high": found.high,
        "tied_with": list(found.tied_with),
        "rank_method": {
            "estimator": "cluster-bootstrap",
            "cluster": ranks.cluster,
            "clusters": ranks.clusters,
            "items": ranks.items,
            "resamples": RANK_RESAMPLES,
            "seed": RANK_SEED,
            "confidence": 0.95,
        },
    }
