"""The item gallery: downscaled inline thumbnails, question, options, key and each model's
answer marked right or wrong. Every store text goes through :func:`html.escape`."""

from __future__ import annotations

import base64
import io
from collections import Counter, defaultdict
from collections.abc import Mapping
from html import escape

from lvlmbench.store import Store, StoreError, iter_benchmark_responses, iter_items
from lvlmbench.types import BenchmarkItem, Response, Status

__all__ = ["gallery_html", "thumbnail_uri"]

THUMB_PX = 96


def thumbnail_uri(store: Store, digest: str, size: int = THUMB_PX) -> str | None:
    """A ``data:image/jpeg;base64,...`` URI of the image downscaled to ``size`` px, or None."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(store.read_image(digest))) as opened:
            image = opened.convert("RGB")
        image.thumbnail((size, size))
        sink = io.BytesIO()
        image.save(sink, format="JPEG", quality=70)
    except (OSError, ValueError, StoreError):
        return None
    return "data:image/jpeg;base64," + base64.b64encode(sink.getvalue()).decode("ascii")


def _pick(items: list[BenchmarkItem], limit: int) -> list[BenchmarkItem]:
    """Spread the picks over fine aspects and levels: round-robin over (aspect, level)."""
    buckets: dict[tuple[str, str], list[BenchmarkItem]] = defaultdict(list)
    for item in items:
        key = (str(item.meta.get("fine_aspect", "-")), str(item.meta.get("difficulty", "-")))
        buckets[key].append(item)
    picked: list[BenchmarkItem] = []
    queues = [buckets[k] for k in sorted(buckets)]
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked


def _answer(item: BenchmarkItem, response: Response, name: str, epochs: bool) -> str:
    """One answer line: the model's display ``name`` and, where the model answered the item
    more than once (``--epochs``), which epoch (1-based, as ``--epochs K`` counts them)."""
    shown = response.extracted if response.extracted is not None else response.text
    if item.kind == "open" or item.answer is None:
        mark, css = "", "open"
    elif response.status is Status.ERROR:
        mark, css = "error", "err"
    elif (
        response.status is Status.OK
        and response.extracted is not None
        and response.extracted.strip().lower() == item.answer.strip().lower()
    ):
        mark, css = "✓", "right"
    else:
        mark, css = "✗", "wrong"
    said = ""
    if response.extracted is not None and response.text.strip() != response.extracted.strip():
        said = f' <span class="raw">({escape(_clip(response.text, 160))})</span>'
    epoch = f' <span class="tag">epoch {response.epoch + 1}</span>' if epochs else ""
    return (
        f'<li class="{css}" data-model="{escape(response.model)}" data-epoch="{response.epoch}">'
        f'<span class="mark">{mark}</span> <b title="{escape(response.model)}">{escape(name)}</b>'
        f"{epoch}: {escape(_clip(shown, 300))}{said}</li>"
    )


def _answers(item: BenchmarkItem, responses: list[Response], names: Mapping[str, str]) -> str:
    counts = Counter(r.model for r in responses)
    ordered = sorted(responses, key=lambda r: (r.model, r.epoch))
    return "".join(
        _answer(item, r, names.get(r.model, r.model), counts[r.model] > 1) for r in ordered
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def gallery_html(
    store: Store, benchmark: str, limit: int = 24, names: Mapping[str, str] | None = None
) -> str:
    """The gallery section body for ``benchmark`` ('' when it has no items); ``names``: the
    models' display names (identities shown in full where None)."""
    items = _pick(list(iter_items(store, benchmark)), limit)
    if not items:
        return ""
    wanted = {item.id for item in items}
    responses: dict[str, list[Response]] = defaultdict(list)
    for response in iter_benchmark_responses(store, benchmark, variant="default"):
        if response.item_id in wanted:
            responses[response.item_id].append(response)
    cards = []
    for item in items:
        uri = thumbnail_uri(store, item.images[0]) if item.images else None
        img = f'<img src="{uri}" alt="item image" width="{THUMB_PX}">' if uri else ""
        options = "".join(
            f"<li><b>{escape(k)}</b>. {escape(v)}</li>" for k, v in sorted(item.options.items())
        )
        facets = " · ".join(
            escape(str(item.meta[k]))
            for k in ("capability", "fine_aspect", "difficulty")
            if k in item.meta
        )
        key = item.answer if item.answer is not None else item.reference
        answers = _answers(item, responses[item.id], names or {})
        cards.append(
            '<div class="card">'
            f'{img}<div class="body"><div class="facets">{facets}</div>'
            f'<p class="q">{escape(item.question)}</p>'
            + (f'<ol class="opts">{options}</ol>' if options else "")
            + (f'<p class="key">key: {escape(key)}</p>' if key else "")
            + f'<ul class="answers">{answers}</ul></div></div>'
        )
    return '<div class="gallery">' + "".join(cards) + "</div>"
