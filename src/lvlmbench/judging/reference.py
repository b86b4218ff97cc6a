"""Answers to judge, and the caption-assisted reference (TouchStone's "GPT4-HA").

Players are named by model spec; two kinds of name are special:

- ``"reference"`` (:data:`REFERENCE`): the item's own ``reference`` field, imported with the
  dataset: VisIT-Bench's human-verified reference (absent where people did not verify GPT-4's
  answer), TouchStone's ``gpt4_ha_answer`` (the default reference of the score judge);
- ``"reference:<spec>"`` (:func:`reference_name`): a *caption-assisted reference*, written by the
  text model ``<spec>`` from the item's caption and question, without the image.

Caption-assisted references are stored as ordinary :class:`Response` rows whose ``model`` is
``reference:<spec>``. That keeps items immutable (an imported benchmark is never rewritten), lets
several reference writers coexist, and makes a reference a player like any other: it is judged,
rated and shown with no special code, and generating it is resumable and cached like any
examinee run. Nothing is re-bought: a second run finds the stored responses and asks nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from lvlmbench.judging._pool import ProgressHook
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.runner import EvalSummary, run_examinee
from lvlmbench.store import Store, iter_items, iter_responses
from lvlmbench.types import BenchmarkItem, GenerationConfig, Message, ModelOutput, Response, Status

__all__ = [
    "REFERENCE",
    "REFERENCE_PREFIX",
    "answer_texts",
    "items_in",
    "make_references",
    "missing_answers",
    "reference_messages",
    "reference_name",
]

REFERENCE = "reference"
"""The player whose answer is the item's own ``reference`` field."""
REFERENCE_PREFIX = "reference:"


def reference_name(spec: str) -> str:
    """The player name of the caption-assisted reference written by ``spec``."""
    return f"{REFERENCE_PREFIX}{spec}"


def reference_messages(item: BenchmarkItem) -> list[Message]:
    """What the reference writer sees: the caption and the instruction, no image (VisIT-Bench's
    GPT-4 prompt, which TouchStone's GPT4-HA follows in spirit)."""
    return [
        Message.user(
            render_prompt(
                "judge/reference.md",
                caption=item.caption or "(no description)",
                instruction=item.question,
            )
        )
    ]


class _Renamed:
    """Delegates to a ChatModel but reports the reference's spec (responses are stored by it)."""

    def __init__(self, client: ModelClient) -> None:
        self._model = client.model
        self.spec = reference_name(client.spec)
        self.endpoint = client.model.endpoint

    def cache_identity(self) -> dict[str, object]:
        return self._model.cache_identity()

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        return await self._model.generate(messages, config)

    async def aclose(self) -> None:
        """The wrapped model belongs to its own client: closing it is the caller's business."""


async def make_references(
    store: Store,
    benchmark: str,
    writer: ModelClient,
    *,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
) -> EvalSummary:
    """Write the caption-assisted reference for every item of ``benchmark`` (resumable).

    Stored as responses of model ``reference:<writer spec>``. An item without a caption gets
    "(no description)" in its place, so its reference rests on the question alone. Uses the
    evaluation runner, so caching, concurrency and resume are the examinees'.
    """
    renamed = ModelClient(
        _Renamed(writer),
        writer.store,
        concurrency=writer.concurrency,
        retry=writer.retry,
        price_per_mtok=writer.price_per_mtok,
    )

    def build(item: BenchmarkItem) -> list[Message]:
        return reference_messages(item)

    summary = await run_examinee(
        store,
        benchmark,
        renamed,
        builder=build,
        config=config or GenerationConfig(max_tokens=512),
        on_progress=on_progress,
    )
    writer.stats.requests += renamed.stats.requests
    return summary


def answer_texts(
    store: Store, items: Iterable[BenchmarkItem], players: Iterable[str], epoch: int = 0
) -> dict[str, dict[str, str]]:
    """``{item_id: {player: answer text}}`` for the players that have a usable answer.

    ``"reference"`` reads the item's reference field; every other player reads its stored
    default-variant response (status ok or refused: a refusal is a real, poor answer; an error
    response is no answer). Responses that failed are absent, so the unit counts as missing.
    A model run with ``evaluate --epochs K`` has K answers per item: this reads ``epoch``'s
    (a judgment judges one epoch's answers), never whichever epoch the store yields last. A
    reference is one answer per item: every epoch reads it (a caption-assisted one's epoch 0).
    """
    items = list(items)
    wanted = {item.id for item in items}
    texts: dict[str, dict[str, str]] = {item.id: {} for item in items}
    for player in dict.fromkeys(players):
        if player == REFERENCE:
            for item in items:
                if item.reference:
                    texts[item.id][player] = item.reference
            continue
        sample = 0 if player.startswith(REFERENCE_PREFIX) else epoch
        for response in iter_responses(store, model=player, variant="default"):
            if response.item_id in wanted and response.epoch == sample and _usable(response):
                texts[response.item_id][player] = response.text
    return texts


def _usable(response: Response) -> bool:
    return response.status is not Status.ERROR and bool(response.text.strip())


def items_in(store: Store, benchmark: str, only: Collection[str] | None) -> list[BenchmarkItem]:
    """The items of ``benchmark`` a run works on: those in ``only`` (a ``--limit`` subset's
    ids), or every item when it is None."""
    items = iter_items(store, benchmark)
    return list(items) if only is None else [item for item in items if item.id in only]


def missing_answers(
    store: Store,
    benchmark: str,
    players: Iterable[str],
    only: Collection[str] | None = None,
    epochs: int = 1,
) -> dict[str, int]:
    """How many answers each player lacks on the items of ``benchmark`` (of ``only``, when
    given) over epochs 0 to ``epochs`` - 1 (with one epoch: the items it has no usable
    answer for)."""
    items = items_in(store, benchmark, only)
    players = list(dict.fromkeys(players))
    missing = dict.fromkeys(players, 0)
    for epoch in range(epochs):
        texts = answer_texts(store, items, players, epoch)
        for p in players:
            missing[p] += sum(p not in texts[i.id] for i in items)
    return missing
