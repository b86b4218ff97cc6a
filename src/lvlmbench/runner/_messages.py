"""What an examinee is shown for an item, per evaluation variant."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from lvlmbench.choice import render_choice_prompt
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, ImagePart, Message

__all__ = [
    "VARIANTS",
    "ItemUnavailable",
    "MessageBuilder",
    "interleave",
    "item_messages",
    "item_prompt",
]

T = TypeVar("T")

MessageBuilder = Callable[[BenchmarkItem], list[Message]]

# default: image + question. no-image: the item's description instead of the image, the
# AutoBench-V answer-leakage / examiner-priority experiment. question-only: neither (language
# prior). Position-bias variants re-key the items themselves; they need no message variant.
VARIANTS = ("default", "no-image", "question-only")
_KEPT_PARTS = 1024


class ItemUnavailable(LookupError):
    """An item that cannot be shown as the variant asks; the runner records it as a failed
    response with this message as the reason, and asks the other items."""


def _shown(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" (+{len(names) - 3} more)" if len(names) > 3 else "")


def _unfetched_images(item: BenchmarkItem) -> ItemUnavailable | None:
    """Imported items whose images are web URLs (never downloaded) or file names found nowhere
    cannot be shown with their images; asking text-only would score the model on a different
    question. The reason names what to download."""
    urls = [str(u) for u in item.meta.get("image_urls") or []]
    missing = [str(m) for m in item.meta.get("missing_images") or []]
    if not urls and not missing:
        return None
    parts = []
    if urls:
        parts.append(f"image not fetched: {_shown(urls)}")
    if missing:
        parts.append(f"image file not found: {_shown(missing)}")
    return ItemUnavailable(
        "; ".join(parts) + "; download it into a folder and re-import the dataset with "
        "--image-root FOLDER (or with a local path or base64 image)"
    )


_PLACEHOLDER = re.compile(r"<image (\d+)>")


def interleave(prompt: str, images: list[T]) -> list[str | T]:
    """The prompt with image ``N`` placed at each ``<image N>`` placeholder (MMMU writes them
    in the question and options; like VLMEvalKit the placeholder itself is replaced). Images no
    placeholder names come first; without placeholders: all images, then the prompt."""
    placed = [int(n) for n in _PLACEHOLDER.findall(prompt) if 1 <= int(n) <= len(images)]
    if not placed:
        return [*images, prompt]
    parts: list[str | T] = [image for n, image in enumerate(images, 1) if n not in placed]
    cursor = 0
    for match in _PLACEHOLDER.finditer(prompt):
        number = int(match.group(1))
        if not 1 <= number <= len(images):
            continue  # a placeholder without its image stays as text
        if prompt[cursor : match.start()]:
            parts.append(prompt[cursor : match.start()])
        parts.append(images[number - 1])
        cursor = match.end()
    if prompt[cursor:]:
        parts.append(prompt[cursor:])
    return parts


def item_prompt(item: BenchmarkItem) -> str:
    """The question text with its options and answer instruction, as examinees see it."""
    if item.kind in ("mc", "tf"):
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
        return [Message.user(*interleave(prompt, [image(h) for h in item.images]))]

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
