"""After an examinee's run: does its server see the images it is sent?

A server that cannot read images may drop them without an error (llama.cpp with a text-only
chat format answered from 7 prompt tokens, question and image gone), and every answer would be
scored as an answer about the picture. The first image item the model answered with prompt
tokens reported is asked once more without its images (one cached, one-token call); when the
images added no prompt tokens the run's summary carries a warning. Servers that report no
usage are not checked, and nothing is said about them.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator

from lvlmbench.models import ModelClient, RunAborted, compare_image_tokens
from lvlmbench.runner._messages import ItemUnavailable, item_messages
from lvlmbench.store import Store, iter_items, iter_responses
from lvlmbench.types import BenchmarkItem, GenerationConfig, Status

__all__ = ["LOOKED_AT", "image_token_warning"]

log = logging.getLogger(__name__)

LOOKED_AT = 16
"""Image items whose answers are looked at for one with prompt tokens before giving up."""


async def image_token_warning(
    store: Store,
    benchmark: str,
    client: ModelClient,
    *,
    variant: str = "default",
    config: GenerationConfig | None = None,
    only: Collection[str] | None = None,
) -> str | None:
    """The warning for ``client``'s model when its images added no prompt tokens on the first
    image item of ``benchmark`` (within ``only``) it answered; None when they did, or when
    nothing can be compared (no image shown, no usage reported, the extra call failed)."""
    if not getattr(client.model, "usage_counts_images", True):  # the baselines
        return None
    build = item_messages(store, variant)
    for item, prompt_tokens in _answered_image_items(store, benchmark, client.spec, variant, only):
        try:
            messages = build(item)
        except ItemUnavailable:
            continue
        try:
            tokens = await compare_image_tokens(client, messages, prompt_tokens, config)
        except RunAborted as exc:  # the run is over and kept: the check never fails it
            log.info("%s: image token check not made: %s", client.spec, exc)
            return None
        if tokens is None or not tokens.images_ignored:
            return None
        return (
            f"{client.spec}: image items cost no more prompt tokens than their text alone "
            f"({tokens.describe()}, item {item.id}): the server seems to drop images (a "
            "text-only model or chat format), and its answers are scored as if it saw them "
            "(check with `lvlmbench models check SPEC --image FILE`)"
        )
    return None


def _answered_image_items(
    store: Store, benchmark: str, model: str, variant: str, only: Collection[str] | None
) -> Iterator[tuple[BenchmarkItem, int]]:
    """The first :data:`LOOKED_AT` image items of the run, each with the prompt tokens of
    ``model``'s answer to it, where it has one with prompt tokens reported."""
    if variant != "default":  # the other variants show no image
        return
    looked_at = 0
    for item in iter_items(store, benchmark):
        if not item.images or (only is not None and item.id not in only):
            continue
        looked_at += 1
        if looked_at > LOOKED_AT:
            return
        for response in iter_responses(store, item_id=item.id, model=model, variant=variant):
            if response.status is not Status.ERROR and response.usage.input_tokens > 0:
                yield item, response.usage.input_tokens
                break
