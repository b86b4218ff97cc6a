"""Generic JSONL: one JSON object per line.

Fields: ``id`` (optional; else the line number keys the item), ``question`` or ``instruction``
(required), ``image`` or ``images`` (optional: one string or a list; each a file path relative
to the JSONL file, base64, a ``data:`` URL or a web URL, which is recorded, not fetched;
``image_url``/``image_urls`` are accepted too), ``reference``, ``caption``, ``category``,
``options`` (an object by letter, or a list lettered A, B, ...), ``answer``, ``kind``
(mc/tf/open; inferred when absent: options make "mc", a true/false/yes/no answer "tf", else
"open" with ``answer`` as reference when there is no ``reference``), ``meta`` (an object merged
into the item's meta). Every other field goes to meta under its name.

``lvlmbench export`` output reads back as is: its ``image_files`` (paths relative to the JSONL)
are the images, and its ``images`` (store digests, meaningless elsewhere) are ignored. The
export's ``benchmark.json`` beside ``items.jsonl`` (:func:`exported_jsonl_benchmark`) names the
benchmark, its kind and definition: imported under that name, the items keep their ids. A
multiple-choice item may lack its answer only when it is from a TEST split (``split`` or
``meta.split`` is "test"), as VLMEvalKit TEST splits are exported.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    DatasetError,
    ParsedItem,
    ProgressHook,
    Row,
    count_lines,
    report_progress,
)
from lvlmbench.datasets.importers._images import ImageAccess, ResolvedImages, resolve_values
from lvlmbench.datasets.importers._json_files import iter_json_lines
from lvlmbench.ids import load_json
from lvlmbench.store import StoredBenchmark

__all__ = [
    "EXPORTED_BENCHMARK",
    "EXPORTED_ITEMS",
    "exported_jsonl_benchmark",
    "item_kind",
    "parse_jsonl",
]

EXPORTED_ITEMS = "items.jsonl"
"""The items file ``lvlmbench export`` writes."""
EXPORTED_BENCHMARK = "benchmark.json"
"""Beside it: the exported benchmark's name, kind and stored definition."""

_IMAGE_FIELDS = ("image", "images", "image_url", "image_urls", "image_path", "image_paths")
_EXPORTED_IMAGES = "image_files"  # lvlmbench export: paths; its "images" are store digests
_TEXT_FIELDS = ("reference", "caption", "category")
_KNOWN = {"id", "question", "instruction", "options", "answer", "kind", "meta"}
_TF = {"true": "true", "false": "false", "yes": "true", "no": "false"}


def _text(row: Row, record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str | int | float):
        raise row.error(f"expected a string, found {type(value).__name__}", name)
    return str(value).strip() or None


def _options(row: Row, value: Any) -> dict[str, str]:
    if value is None or value == {} or value == []:
        return {}
    if isinstance(value, list):
        value = {chr(ord("A") + i): v for i, v in enumerate(value)}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and len(k) == 1 and k.isalpha() for k in value
    ):
        raise row.error("expected an object by option letter or a list of options", "options")
    return {k.upper(): str(v) for k, v in value.items()}


def item_kind(
    row: Row, record: dict[str, Any], options: dict[str, str]
) -> tuple[str, str | None, str | None]:
    """kind, answer key and reference of a record with ``answer``, ``reference``, ``kind`` (and
    ``split`` or ``meta.split``) fields, checked against its options."""
    answer = _text(row, record, "answer")
    reference = _text(row, record, "reference")
    kind = record.get("kind") or ("mc" if options else None)
    if kind is None:
        kind = "tf" if answer is not None and answer.lower() in _TF else "open"
    if kind == "mc":
        if answer is None and len(options) >= 2 and _split(record) == "test":
            return "mc", None, reference  # a TEST split withholds the key
        if len(options) < 2 or answer is None or answer.upper() not in options:
            letters = ", ".join(options) or "none given"
            raise row.error(
                f"a multiple-choice item needs two or more options and an answer among their "
                f"letters ({letters}); found answer {answer!r}",
                "answer",
            )
        return "mc", answer.upper(), reference
    if kind == "tf":
        if answer is None or answer.lower() not in _TF:
            raise row.error(f"expected true/false (or yes/no), found {answer!r}", "answer")
        return "tf", _TF[answer.lower()], reference
    if kind != "open":
        raise row.error(f"expected mc, tf or open, found {kind!r}", "kind")
    return "open", None, reference if reference is not None else answer


def _split(record: dict[str, Any]) -> str:
    meta = record.get("meta")
    split = record.get("split") or (meta.get("split") if isinstance(meta, dict) else None)
    return str(split or "").strip().lower()


def _image_fields(record: dict[str, Any]) -> tuple[str, ...]:
    return (_EXPORTED_IMAGES,) if _EXPORTED_IMAGES in record else _IMAGE_FIELDS


def _parse_record(path: Path, line: int, record: dict[str, Any], access: ImageAccess) -> ParsedItem:
    row = Row(path, line, line, {})
    question = _text(row, record, "question") or _text(row, record, "instruction")
    if question is None:
        raise row.error("expected a non-empty question (or instruction)", "question")
    found = None
    for name in _image_fields(record):
        value = record.get(name)
        if value in (None, "", []):
            continue
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, str) for v in values):
            raise row.error("expected an image path, base64 or URL string (or a list)", name)
        found = found if found is not None else ResolvedImages()
        cleaned = [v.strip() for v in values if v.strip()]
        resolve_values(row, name, cleaned, path.parent, found, access)
    options = _options(row, record.get("options"))
    kind, answer, reference = item_kind(row, record, options)
    exported = _EXPORTED_IMAGES in record
    meta: dict[str, Any] = {} if exported else {"row": line}
    extra = record.get("meta")
    if extra is not None and not isinstance(extra, dict):
        raise row.error("expected an object", "meta")
    meta.update(extra or {})
    for name, value in record.items():
        if name in (_EXPORTED_IMAGES, "benchmark") and _EXPORTED_IMAGES in record:
            continue  # export bookkeeping, not the item's
        if name not in _KNOWN and name not in _IMAGE_FIELDS and name not in _TEXT_FIELDS:
            meta[name] = value
    if found is not None and not exported:  # an export's paths are its own, not a source
        meta["image_sources"] = found.sources
    # An exported item keeps the row key it was first imported under, so importing the export
    # under the same benchmark name gives the same item ids as the original import.
    key = meta.get("source_key") if exported and meta.get("source_key") else record.get("id")
    return ParsedItem(
        key=str(key) if key not in (None, "") else f"line-{line}",
        row=line,
        question=question,
        images=found.images if found else [],
        image_urls=found.urls if found else [],
        missing_images=found.missing if found else [],
        images_from_root=found.from_root if found else 0,
        kind=kind,
        options=options,
        answer=answer,
        reference=reference,
        caption=_text(row, record, "caption"),
        category=_text(row, record, "category"),
        meta=meta,
        exported_id=str(record["id"]) if exported and record.get("id") else None,
    )


def exported_jsonl_benchmark(path: Path) -> StoredBenchmark | None:
    """The benchmark an ``lvlmbench export``'s ``items.jsonl`` holds, from the
    :data:`EXPORTED_BENCHMARK` file beside it (name, kind, definition); None for any other
    JSONL or a file that does not read (the items are still imported)."""
    side = path.parent / EXPORTED_BENCHMARK
    if path.name != EXPORTED_ITEMS or not side.is_file():
        return None
    try:
        record = load_json(side.read_text(encoding="utf-8"))
        return StoredBenchmark(
            name=str(record["benchmark"]), kind=str(record["kind"]), data=record.get("data") or {}
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def parse_jsonl(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a JSONL file, streamed; DatasetError at the first bad line.
    ``on_progress`` hears (lines validated, non-blank lines in the file); ``access`` says where
    pictures may be read (default: the file's folder)."""
    access = access if access is not None else ImageAccess(path.parent)
    total = count_lines(path) if on_progress is not None else 0
    count = 0
    for line, record in iter_json_lines(path):
        yield _parse_record(path, line, record, access)
        count += 1
        report_progress(on_progress, count, total)
    if not count:
        raise DatasetError(path, "no items: the file has no JSON lines")
