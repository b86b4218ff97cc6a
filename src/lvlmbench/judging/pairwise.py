"""VisIT-Bench's pairwise judge: caption + instruction + two responses -> A, B or tie.

Every pair is judged in **both presentation orders**, stored as two :class:`Judgment` rows. In a
row, ``model_a`` is the model shown as "Response A" and ``verdict`` is what the judge said about
that presentation ('a', 'b', 'tie'); ``order`` is "ab" when the pair's players appear in sorted
order and "ba" for the swapped presentation. So a row records exactly what the judge saw, and a
human vote (protocol "human") has the same shape.

The combined result (:func:`combine_orders`) follows VisIT-Bench's released leaderboard rule by
default (``"majority"``): the side that wins more of the two orders wins, so a win plus a tie is
a win and a split or two ties is a tie; ``"both"`` is the stricter option where a side must win
both orders (:mod:`lvlmbench.ratings.combine`). An order that was unparseable, refused or failed
leaves the pair *unscored*.

Two variants: reference-free (protocol ``"pairwise"``, the paper's choice; the reference may
play as model ``"reference"``) and reference-backed (``"pairwise-ref"``, the reference text is
shown to the judge and so cannot also play).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from lvlmbench.judging._pool import (
    JudgeRunSummary,
    ProgressHook,
    done_judgments,
    epoch_config,
    run_jobs,
    unit_id,
)
from lvlmbench.judging.reference import REFERENCE, answer_texts, items_in
from lvlmbench.judging.verdict import PairVerdict, ParsedVerdict, judged, parse_verdict
from lvlmbench.models import ModelClient, ModelSpec
from lvlmbench.prompts import render_prompt
from lvlmbench.ratings import MAJORITY, CombineRule, combine_winners
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, GenerationConfig, Judgment, Message, ModelOutput, Status

__all__ = [
    "FAMILIES",
    "PAIRWISE",
    "PAIRWISE_REF",
    "combine_orders",
    "model_family",
    "pairwise_judgment",
    "pairwise_messages",
    "run_pairwise",
    "self_preference_warnings",
]

log = logging.getLogger(__name__)

PAIRWISE = "pairwise"
"""Protocol name of the reference-free pairwise judge."""
PAIRWISE_REF = "pairwise-ref"
"""Protocol name of the reference-backed pairwise judge."""

FAMILIES = (
    "gpt",
    "claude",
    "gemini",
    "gemma",
    "qwen",
    "llama",
    "llava",
    "mistral",
    "phi",
    "deepseek",
    "internvl",
    "idefics",
    "smolvlm",
    "pixtral",
    "grok",
)
"""Model families recognised in a spec (case-insensitive substring), for the self-preference
guard and diagnostic."""


def model_family(spec: str) -> str | None:
    """The family named in ``spec`` ('gpt', 'claude', 'gemini', 'qwen', ...), or None."""
    lowered = ModelSpec.read(spec).label.lower()  # an endpoint URL names no family
    for family in FAMILIES:
        if family in lowered:
            return family
    return None


def self_preference_warnings(judge: str, players: Iterable[str]) -> list[str]:
    """One warning per player of the judge's own family (judges favour their own kind)."""
    family = model_family(judge)
    if family is None:
        return []
    return [
        f"judge {judge} and player {p} are both {family} models: self-preference may bias "
        "the verdicts (see the self-preference diagnostic)"
        for p in dict.fromkeys(players)
        if model_family(p) == family
    ]


def pairwise_messages(
    item: BenchmarkItem, response_a: str, response_b: str, reference: str | None = None
) -> list[Message]:
    """The judge's prompt for one presentation; with ``reference`` the reference-backed one."""
    values = {
        "caption": item.caption or "(no description)",
        "instruction": item.question,
        "response_a": response_a,
        "response_b": response_b,
    }
    if reference is None:
        user = render_prompt("judge/pairwise_user.md", **values)
    else:
        user = render_prompt("judge/pairwise_user_ref.md", reference=reference, **values)
    return [Message.system(render_prompt("judge/pairwise_system.md")), Message.user(user)]


def pairwise_judgment(
    output: ModelOutput,
    *,
    item_id: str,
    judge: str,
    protocol: str,
    shown: tuple[str, str],
    order: str,
    epoch: int = 0,
) -> Judgment:
    """The stored row for one judge reply: parsed verdict, or the status that says why not."""
    row = Judgment(
        item_id=item_id,
        judge=judge,
        protocol=protocol,
        model_a=shown[0],
        model_b=shown[1],
        order=order,
        epoch=epoch,
    )
    return judged(row, output, parse_verdict)


def combine_orders(
    ab: Judgment | None, ba: Judgment | None, rule: CombineRule = MAJORITY
) -> PairVerdict | None:
    """The pair's result in terms of the "ab" row's players under ``rule``: 'a' if
    ``ab.model_a`` wins, 'b' if ``ab.model_b`` does, 'tie' otherwise; None when an order is
    missing or not ok. ``"majority"`` (VisIT-Bench's released rule): the side that wins more of
    the two orders wins; ``"both"``: a side must win both orders."""
    if ab is None or ba is None or ab.status is not Status.OK or ba.status is not Status.OK:
        return None
    first, second = _winner(ab), _winner(ba)
    if first is None or second is None or ab.model_b is None:
        return None
    outcome = combine_winners(first, second, ab.model_a, ab.model_b, rule)
    return None if outcome is None else "a" if outcome == 1.0 else "b" if outcome == 0.0 else "tie"


def _winner(row: Judgment) -> str | None:
    """The player a row's verdict picks, 'tie', or None without a verdict."""
    verdict = ParsedVerdict.of(row).verdict
    if verdict == "tie":
        return "tie"
    if verdict == "a":
        return row.model_a
    if verdict == "b":
        return row.model_b
    return None


@dataclass(frozen=True)
class _Job:
    item: BenchmarkItem
    shown: tuple[str, str]
    order: str
    texts: tuple[str, str]
    reference: str | None
    unit: str
    """The judgment's store id: runs of this judge sharing a store lease it."""
    epoch: int = 0
    """Whose answers: each player's epoch-``epoch`` sample (``judge --epochs K``)."""


def _plan(
    items: Sequence[BenchmarkItem],
    texts: dict[str, dict[str, str]],
    players: Sequence[str],
    reference: str | None,
    summary: JudgeRunSummary,
    done: set[str],
    epoch: int = 0,
) -> list[_Job]:
    """The units of one epoch: every pair on every item in both orders, each judging the two
    players' epoch-``epoch`` answers."""
    jobs: list[_Job] = []
    for item in items:
        answers = texts[item.id]
        ref_text = answers.get(reference) if reference is not None else None
        for p1, p2 in combinations(sorted(players), 2):
            for shown, order in (((p1, p2), "ab"), ((p2, p1), "ba")):
                summary.total += 1
                probe = Judgment(
                    item_id=item.id,
                    judge=summary.judge,
                    protocol=summary.protocol,
                    model_a=shown[0],
                    model_b=shown[1],
                    order=order,
                    epoch=epoch,
                )
                unit = unit_id(probe)
                if unit in done:
                    summary.skipped += 1
                elif p1 not in answers or p2 not in answers or (reference and ref_text is None):
                    summary.missing += 1
                else:
                    pair = (answers[shown[0]], answers[shown[1]])
                    jobs.append(_Job(item, shown, order, pair, ref_text, unit, epoch))
    return jobs


async def run_pairwise(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    judge: ModelClient,
    *,
    reference_backed: bool = False,
    include_reference: bool = False,
    reference: str = REFERENCE,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
    only: Collection[str] | None = None,
    epochs: int = 1,
) -> JudgeRunSummary:
    """Judge every pair of ``models`` on every item of ``benchmark`` (of ``only``, a
    ``--limit`` subset's ids, when given), both orders (resumable).

    Responses must already be stored (``run_examinee``); a pair lacking an answer is counted
    as ``missing``. ``include_reference`` adds the reference (player ``reference``) to the
    tournament (reference-free only); ``reference_backed`` shows it to the judge instead.
    With ``epochs`` K, each epoch k pairs the players' k-th answers (``evaluate --epochs``
    samples; the reference is one answer) as its own units, asked with ``config.epoch = k``.
    """
    if reference_backed and include_reference:
        raise ValueError("the reference-backed judge sees the reference: it cannot also play")
    players = list(dict.fromkeys([*models, *([reference] if include_reference else [])]))
    if len(players) < 2:
        raise ValueError(f"pairwise judging needs at least two players, got {players}")
    protocol = PAIRWISE_REF if reference_backed else PAIRWISE
    summary = JudgeRunSummary(judge=judge.spec, protocol=protocol, benchmark=benchmark)
    summary.warnings = self_preference_warnings(judge.spec, players)
    for warning in summary.warnings:
        log.warning(warning)
    items = items_in(store, benchmark, only)
    done = done_judgments(store, judge.spec, protocol)
    shown_reference = reference if reference_backed else None
    jobs: list[_Job] = []
    for epoch in range(epochs):
        texts = answer_texts(store, items, [*players, reference], epoch)
        jobs += _plan(items, texts, players, shown_reference, summary, done, epoch)
    config = config or GenerationConfig(max_tokens=1024)

    async def judge_one(job: _Job) -> Judgment:
        messages = pairwise_messages(job.item, *job.texts, reference=job.reference)
        output = await judge.generate(messages, epoch_config(config, job.epoch))
        return pairwise_judgment(
            output,
            item_id=job.item.id,
            judge=judge.spec,
            protocol=protocol,
            shown=job.shown,
            order=job.order,
            epoch=job.epoch,
        )

    return await run_jobs(store, judge, jobs, judge_one, summary, on_progress, _unit)


def _unit(job: _Job) -> str:
    return job.unit
