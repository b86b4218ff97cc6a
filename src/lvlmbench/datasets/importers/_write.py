"""Writing validated items: images into the store, items with stable ids, the benchmark row."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import DatasetError, ParsedItem, ProgressHook
from lvlmbench.ids import content_id
from lvlmbench.store import (
    Store,
    StoredItemText,
    count_items,
    get_benchmark,
    put_benchmark,
    put_items,
    stored_item_texts,
    update_items,
)
from lvlmbench.types import BenchmarkItem

__all__ = ["ImportSummary", "item_id", "write_items"]


@dataclass
class ImportSummary:
    """What one import did (the CLI prints it; ``--json`` prints :meth:`as_dict`)."""

    benchmark: str
    format: str
    source: str
    rows: int = 0
    items_added: int = 0
    items_updated: int = 0
    """Items already stored under the same id whose content changed (e.g. --concat-images)."""
    items_unchanged: int = 0
    images: int = 0
    """Images read from the file (paths and base64), before concatenation."""
    concatenated: int = 0
    """Multi-image rows stored as one concatenated image."""
    urls_not_fetched: list[str] = field(default_factory=list)
    images_missing: list[str] = field(default_factory=list)
    """Image file names found nowhere: those items fail at evaluation until downloaded."""
    image_root: str | None = None
    """The ``--image-root`` folder URLs and file names were looked up in."""
    images_from_root: int = 0
    votes: int = 0
    """Human judgments written (votes format)."""
    votes_added: int = 0
    annotators: list[str] = field(default_factory=list)
    """Judges of the stored votes (``human:<annotator>``, or the model judge of battles)."""
    responses_added: int = 0
    """Answers found only in a vote file, stored as their model's responses."""
    response_conflicts: list[str] = field(default_factory=list)
    """Answers in a vote file that differ from the model's stored answer (kept, not stored)."""
    unmatched: int = 0
    """Vote rows that matched no item of the benchmark (not stored)."""
    unmatched_keys: list[str] = field(default_factory=list)
    """The first few unmatched rows, by their key in the file."""
    ambiguous: int = 0
    """Vote rows whose image and instruction match several items (joined to the first)."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Vote rows left out on purpose, by reason (e.g. a later turn of a multi-turn question)."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def item_id(benchmark: str, key: str) -> str:
    """The stable id of the item with row key ``key`` in ``benchmark``."""
    return content_id("imported-item", benchmark, key)


def _store_images(
    store: Store, parsed: ParsedItem, concat: bool, summary: ImportSummary
) -> tuple[list[str], dict[str, Any]]:
    hashes = [store.put_image(data) for data in parsed.images]
    summary.images += len(hashes)
    meta: dict[str, Any] = {}
    if concat and len(hashes) > 1:
        from lvlmbench.images.compose import concatenate

        meta["original_images"] = hashes
        hashes = [store.put_image(concatenate(parsed.images))]
        summary.concatenated += 1
    return hashes, meta


def _to_item(
    store: Store, benchmark: str, parsed: ParsedItem, concat: bool, summary: ImportSummary
) -> BenchmarkItem:
    hashes, extra = _store_images(store, parsed, concat, summary)
    meta = dict(parsed.meta)
    meta.update(extra)
    meta["source_key"] = parsed.key  # the join column of prediction and vote files
    if parsed.image_urls:
        meta["image_urls"] = list(parsed.image_urls)
        summary.urls_not_fetched.extend(parsed.image_urls)
    if parsed.missing_images:
        meta["missing_images"] = list(parsed.missing_images)
        summary.images_missing.extend(parsed.missing_images)
    summary.images_from_root += parsed.images_from_root
    return BenchmarkItem(
        id=item_id(benchmark, parsed.key),
        benchmark=benchmark,
        question=parsed.question,
        kind=parsed.kind,
        images=hashes,
        options=parsed.options,
        answer=parsed.answer,
        reference=parsed.reference,
        caption=parsed.caption,
        category=parsed.category,
        meta=meta,
    )


def write_items(
    store: Store,
    benchmark: str,
    fmt: str,
    source: Path,
    parsed_items: list[ParsedItem],
    *,
    concat_images: bool = False,
    on_progress: ProgressHook | None = None,
    image_root: Path | None = None,
) -> ImportSummary:
    """Store validated items under ``benchmark`` (created or updated); idempotent: items already
    stored under the same id are left alone unless their content changed."""
    existing = get_benchmark(store, benchmark)
    if existing is not None and existing["kind"] != fmt:
        raise DatasetError(
            source,
            f"benchmark {benchmark!r} already exists with kind {existing['kind']!r}; import "
            f"{fmt} data under another --name",
        )
    summary = ImportSummary(benchmark=benchmark, format=fmt, source=str(source))
    summary.image_root = str(image_root) if image_root is not None else None
    summary.rows = len(parsed_items)
    stored = stored_item_texts(store, benchmark)
    added: list[BenchmarkItem] = []
    changed: list[tuple[int, BenchmarkItem]] = []
    for done, parsed in enumerate(parsed_items, start=1):
        item = _to_item(store, benchmark, parsed, concat_images, summary)
        encoded = item.model_dump_json()
        if item.id not in stored:
            added.append(item)
            stored[item.id] = StoredItemText(-1, encoded)
        elif json.loads(stored[item.id].data) != json.loads(encoded):
            changed.append((stored[item.id].seq, item))
        else:
            summary.items_unchanged += 1
        if on_progress is not None:
            on_progress(done, len(parsed_items))
    put_items(store, added)
    update_items(store, changed)
    summary.items_added = len(added)
    summary.items_updated = len(changed)
    sources = set(existing["data"].get("sources", [])) if existing is not None else set()
    sources.add(source.name)
    data = {
        "format": fmt,
        "sources": sorted(sources),
        "items": count_items(store, benchmark),
    }
    put_benchmark(store, benchmark, fmt, data)
    return summary
