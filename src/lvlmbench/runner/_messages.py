"""What an examinee is shown for an item, per evaluation variant."""

from __future__ import annotations

from collections.abc import Callable

from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, ImagePart, Message

__all__ = ["VARIANTS", "ItemUnavailable", "MessageBuilder", "item_messages", "item_prompt"]

MessageBuilder = Callable[[BenchmarkItem], list[Message]]

# default: image + question. no-image: the item's description instead of the image, the
# AutoBench-V answer-leakage / examiner-priority experiment. question-only: neither (language
# prior). Position-bias variants re-key the items themselves; they need no message variant.
VARIANTS = ("default", "no-image", "question-only")
_KEPT_PARTS = 1024


class ItemUnavailable(LookupError):
    """An item that cannot be shown as the variant asks; the runner records it as a failed
    response with this message as the reason, and asks the other items."""


def _unfetched_images(item: BenchmarkItem) -> ItemUnavailable | None:
    """Imported items whose images are web URLs (never downloaded) cannot be shown with their
    images; asking text-only would score the model on a different question."""
    urls = item.meta.get("image_urls")
    if not urls:
        return None
    shown = ", ".join(str(u) for u in urls[:3]) + (
        f" (+{len(urls) - 3} more)" if len(urls) > 3 else ""
    )
    return ItemUnavailable(
        f"image not fetched: {shown}; download it and re-import the dataset with a local path "
        "or base64 image"
    )


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
        unavailable = _unfetched_images(item)
        if unavailable is not None:
            raise unavailable
        return [Message.user(*[image(h) for h in item.images], prompt)]

    # Items often share a picture; its part is made once (the hash is already checked then).
    parts: dict[str, ImagePart] = {}

    def image(digest: str) -> ImagePart:
        part = parts.get(digest)
        if part is None:
            if len(parts) >= _KEPT_PARTS:
                parts.clear()
            part = parts[digest] = ImagePart.from_path(store.image_path(digest), sha256=digest)
        return part

    return build
