"""Writing validated items: images into the store, items with stable ids, the benchmark row.

Items arrive as a stream and are written in batches (:data:`BATCH` items or
:data:`BATCH_BYTES` of pictures, whichever comes first): each batch's pictures in one store
write, the stored versions of its items looked up in one query, its new items in one insert.
What the import must remember about every row (the distinct pictures, URLs and missing
files it counted; the pictures of rows that other rows show) lives in a :class:`Scratch` on
disk, so memory stays the same whatever the file's size.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import pickle
from collections import OrderedDict
from collections.abc import Iterable, Sized
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lvlmbench.datasets.importers._common import DatasetError, ParsedItem, ProgressHook
from lvlmbench.datasets.importers._scratch import Scratch
from lvlmbench.ids import content_id
from lvlmbench.store import (
    ImportedData,
    Store,
    StoredBenchmark,
    count_items,
    get_benchmark,
    next_item_seq,
    put_benchmark,
    put_items,
    stored_item_texts,
    update_items,
)
from lvlmbench.types import BenchmarkItem

__all__ = ["BATCH", "BATCH_BYTES", "SHOWN", "ImportSummary", "item_id", "write_items"]

BATCH = 500
"""Items written per store transaction."""
BATCH_BYTES = 32 << 20
"""Picture bytes held per batch at most (a batch of MMBench rows with 1 MB photos is cut short)."""
SHOWN = 100
"""Distinct URLs (and missing file names) a summary lists; its counts cover the rest."""
_KNOWN_DIGESTS = 4096  # pictures stored recently, by the hash of the bytes read


class ImportSummary(BaseModel):
    """What one import did (the CLI prints it; ``--json`` prints its ``model_dump()``, the
    same keys in the same order)."""

    benchmark: str
    format: str
    source: str
    rows: int = 0
    items_added: int = 0
    items_updated: int = 0
    """Items already stored under the same id whose content changed (e.g. --concat-images)."""
    items_unchanged: int = 0
    images: int = 0
    """Distinct images the items show, as read from the file (paths and base64; before
    concatenation): a picture that 1,000 rows name counts once."""
    concatenated: int = 0
    """Multi-image rows stored as one concatenated image."""
    urls_not_fetched: list[str] = Field(default_factory=list)
    """The first :data:`SHOWN` distinct image URLs not fetched (the count covers all)."""
    urls_not_fetched_count: int = 0
    images_missing: list[str] = Field(default_factory=list)
    """The first :data:`SHOWN` distinct image file names found nowhere: those items fail at
    evaluation until downloaded (the count covers all)."""
    images_missing_count: int = 0
    image_root: str | None = None
    """The ``--image-root`` folder URLs and file names were looked up in."""
    images_from_root: int = 0
    votes: int = 0
    """Human judgments written (votes format)."""
    votes_added: int = 0
    annotators: list[str] = Field(default_factory=list)
    """Judges of the stored votes (``human:<annotator>``, or the model judge of battles)."""
    verdicts: int = 0
    """Of the votes, those by a model judge (battles, FastChat's GPT-4 pair judgments)."""
    responses_added: int = 0
    """Answers found only in a vote file, stored as their model's responses."""
    response_conflicts: list[str] = Field(default_factory=list)
    """Answers in a vote file that differ from the model's stored answer (kept, not stored)."""
    unmatched: int = 0
    """Vote rows that matched no item of the benchmark (not stored)."""
    unmatched_keys: list[str] = Field(default_factory=list)
    """The first few unmatched rows, by their key in the file."""
    ambiguous: int = 0
    """Vote rows whose image and instruction match several items (joined to the first)."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Vote rows left out on purpose, by reason (e.g. a later turn of a multi-turn question)."""


def item_id(benchmark: str, key: str) -> str:
    """The stable id of the item with row key ``key`` in ``benchmark``."""
    return content_id("imported-item", benchmark, key)


@dataclass(frozen=True)
class _Pictures:
    """What an item shows, as stored: its image hashes, meta from concatenation, and the URLs
    and file names that were not read. Remembered for items other rows share pictures with."""

    hashes: list[str]
    extra: dict[str, Any]
    urls: list[str]
    missing: list[str]
    from_root: int

    def dumps(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> _Pictures:
        return cls(**json.loads(text))


class _Writer:
    """Writes one import's items batch by batch (see the module doc)."""

    def __init__(
        self,
        store: Store,
        benchmark: str,
        summary: ImportSummary,
        scratch: Scratch,
        concat: bool,
    ) -> None:
        self.store = store
        self.benchmark = benchmark
        self.summary = summary
        self.concat = concat
        self.digests = scratch.map("digests")
        self.urls = scratch.map("urls")
        self.missing = scratch.map("missing")
        self.shared = scratch.map("shared")
        self.deferred = scratch.map("deferred")
        self.keep_ids = False
        """Whether items keep the ids of the export they were read from."""
        self.batch: list[ParsedItem] = []
        self.batch_bytes = 0
        # Asked once: the store's last place is a scan of every item, and per batch it made
        # a million-row import quadratic. New items take the places after it in file order.
        self.next_seq = next_item_seq(store)
        self._known: OrderedDict[bytes, str] = OrderedDict()
        # One batch is written on this thread while the caller reads the next: storing a
        # picture is mostly waiting on the disk (creating its file), reading rows is CPU.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lvlmbench-import")
        self._writing: Future[None] | None = None

    def add(self, parsed: ParsedItem) -> None:
        self.batch.append(parsed)
        self.batch_bytes += sum(len(data) for data in parsed.images)
        if len(self.batch) >= BATCH or self.batch_bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Hand the batch to the writing thread (once it has written the previous one)."""
        if not self.batch:
            return
        batch, self.batch, self.batch_bytes = self.batch, [], 0
        self._wait()
        self._writing = self._thread.submit(self._write_batch, batch)

    def _wait(self) -> None:
        writing, self._writing = self._writing, None
        if writing is not None:
            writing.result()  # an error of the writing thread surfaces here

    def close(self) -> None:
        """Let the batch being written finish before returning (also when reading failed)."""
        self._thread.shutdown(wait=True)

    def finish(self) -> None:
        """Write what is left, then the items whose shared pictures came later in the file."""
        self.flush()
        self._wait()
        for key in self.deferred.first(len(self.deferred)):
            blob = self.deferred.get(key) or ""
            parsed: ParsedItem = pickle.loads(bytes.fromhex(blob))  # this process wrote it
            pictures = self.shared.get(parsed.image_of or "")
            if pictures is None:
                raise DatasetError(
                    Path(self.summary.source),
                    f"the image cell names row key {parsed.image_of!r}, which has no picture "
                    "of its own",
                    row=parsed.row,
                    column="image",
                )
            self._write([(parsed, _Pictures.loads(pictures))])

    def _write_batch(self, batch: list[ParsedItem]) -> None:
        hashes = self._store_images(batch)
        found: list[_Pictures | None] = [None] * len(batch)
        # Items with pictures of their own first, so a row showing another row's pictures
        # further down the same batch finds them.
        for position, parsed in enumerate(batch):
            if parsed.image_of is None:
                own = found[position] = self._pictures(parsed, hashes[position])
                if parsed.shares_images:
                    self.shared[parsed.key] = own.dumps()
        ready: list[tuple[ParsedItem, _Pictures]] = []
        for parsed, pictures in zip(batch, found, strict=True):
            if pictures is None and parsed.image_of is not None:
                shared = self.shared.get(parsed.image_of)
                if shared is None:  # its pictures are on a row further down: written last
                    self.deferred[parsed.key] = pickle.dumps(parsed).hex()
                    continue
                pictures = _Pictures.loads(shared)
            assert pictures is not None
            ready.append((parsed, pictures))
        self._write(ready)

    def _store_images(self, batch: list[ParsedItem]) -> list[list[str]]:
        """Each item's image hashes, storing in one write the pictures not stored recently."""
        keys = [[hashlib.sha256(data).digest() for data in p.images] for p in batch]
        known: dict[bytes, str] = {}
        pending: dict[bytes, bytes] = {}
        for parsed, item_keys in zip(batch, keys, strict=True):
            for key, data in zip(item_keys, parsed.images, strict=True):
                if key in self._known:
                    known[key] = self._known[key]
                    self._known.move_to_end(key)
                elif key not in known:
                    pending[key] = data
        if pending:
            known.update(zip(pending, self.store.put_images(list(pending.values())), strict=True))
        for key in pending:
            self._known[key] = known[key]
            if len(self._known) > _KNOWN_DIGESTS:
                self._known.popitem(last=False)
        return [[known[key] for key in item_keys] for item_keys in keys]

    def _pictures(self, parsed: ParsedItem, hashes: list[str]) -> _Pictures:
        """The pictures of an item with pictures of its own, counted for the summary."""
        for digest in hashes:
            self.digests.setdefault(digest)
        for url in parsed.image_urls:
            self.urls.setdefault(url)
        for name in parsed.missing_images:
            self.missing.setdefault(name)
        extra: dict[str, Any] = {}
        if self.concat and len(hashes) > 1:
            from lvlmbench.images.compose import concatenate

            extra["original_images"] = hashes
            hashes = self.store.put_images([concatenate(parsed.images)])
        return _Pictures(
            hashes, extra, parsed.image_urls, parsed.missing_images, parsed.images_from_root
        )

    def _item(self, parsed: ParsedItem, pictures: _Pictures) -> BenchmarkItem:
        kept = parsed.exported_id if self.keep_ids else None
        meta = dict(parsed.meta)
        meta.update(pictures.extra)
        if kept is None:  # a kept item is as it was exported (an imported one has its key)
            meta["source_key"] = parsed.key  # the join column of prediction and vote files
        if pictures.urls:
            meta["image_urls"] = list(pictures.urls)
        if pictures.missing:
            meta["missing_images"] = list(pictures.missing)
        if pictures.extra.get("original_images"):
            self.summary.concatenated += 1
        self.summary.images_from_root += pictures.from_root
        return BenchmarkItem(
            id=kept or item_id(self.benchmark, parsed.key),
            benchmark=self.benchmark,
            question=parsed.question,
            kind=parsed.kind,
            images=pictures.hashes,
            options=parsed.options,
            answer=parsed.answer,
            reference=parsed.reference,
            caption=parsed.caption,
            category=parsed.category,
            meta=meta,
        )

    def _write(self, ready: list[tuple[ParsedItem, _Pictures]]) -> None:
        """Insert the new items after the store's last, rewrite the changed ones in their
        places, count the unchanged."""
        items = [self._item(parsed, pictures) for parsed, pictures in ready]
        stored = stored_item_texts(self.store, self.benchmark, [item.id for item in items])
        added: list[BenchmarkItem] = []
        changed: list[tuple[int, BenchmarkItem]] = []
        for item in items:
            encoded = item.model_dump_json()
            before = stored.get(item.id)
            if before is None:
                added.append(item)
            elif json.loads(before.data) != json.loads(encoded):
                changed.append((before.seq, item))
            else:
                self.summary.items_unchanged += 1
        put_items(self.store, added, start_seq=self.next_seq)
        self.next_seq += len(added)
        update_items(self.store, changed)
        self.summary.items_added += len(added)
        self.summary.items_updated += len(changed)


def write_items(
    store: Store,
    benchmark: str,
    fmt: str,
    source: Path,
    parsed_items: Iterable[ParsedItem],
    *,
    concat_images: bool = False,
    on_progress: ProgressHook | None = None,
    image_root: Path | None = None,
    total: int | None = None,
    scratch: Scratch | None = None,
    restored: StoredBenchmark | None = None,
) -> ImportSummary:
    """Store validated items under ``benchmark`` (created or updated), streamed in batches;
    idempotent: items already stored under the same id are left alone unless their content
    changed. ``total`` (else ``len(parsed_items)``) is the progress total; ``scratch`` (else a
    new one) is where the import's counts are kept. The benchmark's row is written last.
    ``restored``: an ``lvlmbench export`` of this very benchmark, whose items keep their
    exported ids and whose kind and definition (a generation report) are stored as they were
    (a benchmark already there keeps its own)."""
    existing = get_benchmark(store, benchmark)
    kind = restored.kind if restored is not None else fmt
    if existing is not None and existing.kind != kind:
        raise DatasetError(
            source,
            f"benchmark {benchmark!r} already exists with kind {existing.kind!r}; import "
            f"{kind} data under another --name",
        )
    summary = ImportSummary(benchmark=benchmark, format=fmt, source=str(source))
    summary.image_root = str(image_root) if image_root is not None else None
    if total is None:
        total = len(parsed_items) if isinstance(parsed_items, Sized) else 0
    with Scratch() if scratch is None else contextlib.nullcontext(scratch) as memory:
        writer = _Writer(store, benchmark, summary, memory, concat_images)
        writer.keep_ids = restored is not None
        try:
            for done, parsed in enumerate(parsed_items, start=1):
                writer.add(parsed)
                summary.rows = done
                if on_progress is not None:
                    on_progress(done, max(done, total))
            writer.finish()
        finally:
            writer.close()
        summary.images = len(writer.digests)
        summary.urls_not_fetched = writer.urls.first(SHOWN)
        summary.urls_not_fetched_count = len(writer.urls)
        summary.images_missing = writer.missing.first(SHOWN)
        summary.images_missing_count = len(writer.missing)
    if restored is not None:
        if existing is None:
            put_benchmark(store, benchmark, restored.kind, restored.data)
        return summary
    sources = {source.name}
    if existing is not None and isinstance(existing.data, ImportedData):
        sources.update(existing.data.sources)
    data = ImportedData(format=fmt, sources=sorted(sources), items=count_items(store, benchmark))
    put_benchmark(store, benchmark, fmt, data)
    return summary
