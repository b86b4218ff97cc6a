"""What an examinee is shown for an item, per evaluation variant."""

from __future__ import annotations

from collections.abc import Callable

from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, ImagePart, Message

__all__ = ["VARIANTS", "MessageBuilder", "item_messages", "item_prompt"]

MessageBuilder = Callable[[BenchmarkItem], list[Message]]

# default: image + question. no-image: the item's description instead of the image, the
# AutoBench-V answer-leakage / examiner-priority experiment. question-only: neither (language
# prior). Position-bias variants re-key the items themselves; they need no message variant.
VARIANTS = ("default", "no-image", "question-only")


def item_prompt(item: BenchmarkItem) -> str:
    """The question text with its options and answer instruction, as examinees see it."""
    if item.kind in ("mc", "tf"):
        from lvlmbench.judging import render_choice_prompt

        return render_choice_prompt(item)
    return item.question


def item_messages(store: Store, variant: str = "default") -> MessageBuilder:
    """A builder of examinee messages for ``variant``; images are read lazily from the store."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")

    def build(item: BenchmarkItem) -> list[Message]:
        prompt = item_prompt(item)
        if variant == "question-only" or (variant == "no-image" and not item.caption):
            return [Message.user(prompt)]
        if variant == "no-image":
            assert item.caption is not None
            return [
                Message.user(
                    render_prompt(
                        "eval/with_description.md", description=item.caption, prompt=prompt
                    )
                )
            ]
        images = [ImagePart.from_path(store.image_path(h), sha256=h) for h in item.images]
        return [Message.user(*images, prompt)]

    return build
