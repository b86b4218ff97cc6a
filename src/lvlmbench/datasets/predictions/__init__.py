"""Model prediction files imported as the responses of a model: VLMEvalKit
``{model}_{dataset}.xlsx``/``.tsv`` (``prediction``), VisIT-Bench ``<model> prediction``
columns, TouchStone submissions (``response``) and JSONL ``{id or index, answer}``.

Rows are joined to the benchmark's stored items by the file's own keys; choice answers are
extracted exactly as in a model run (:func:`lvlmbench.runner.score_output`). An empty/NaN cell,
or VLMEvalKit's "Failed to obtain answer via API." marker, is stored as an ``error`` response
with a reason naming the row (so it is counted as failed, never as an answer). Rows that match
no item are listed by key; ``strict`` makes them an error. The whole file is checked before
anything is written.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from lvlmbench.datasets.importers import DatasetError, FormatRule, register_format
from lvlmbench.datasets.predictions._join import match_predictions
from lvlmbench.datasets.predictions._parse import (
    Prediction,
    PredictionFile,
    is_prediction_table,
    looks_like_predictions,
    parse_prediction_file,
)
from lvlmbench.runner import score_output
from lvlmbench.store import ImportedData, Store, get_benchmark, iter_items, put_responses
from lvlmbench.types import BenchmarkItem, ModelOutput, Response, Status

__all__ = [
    "PREDICTIONS_FORMAT",
    "Prediction",
    "PredictionFile",
    "PredictionSummary",
    "import_predictions",
    "is_prediction_table",
    "looks_like_predictions",
    "model_from_file_name",
    "parse_prediction_file",
]

PREDICTIONS_FORMAT = "predictions"
"""The format name ``lvlmbench import -f`` takes for prediction files."""
VLMEVAL_FAILURE = "Failed to obtain answer via API"
"""What VLMEvalKit writes as the prediction of a call that failed (``inference.py``)."""
SHOWN_KEYS = 10
"""Unmatched row keys listed in a summary; the count covers the rest."""


class PredictionSummary(BaseModel):
    """What one prediction import did (the CLI prints it; ``--json`` prints its
    ``model_dump()``)."""

    benchmark: str
    source: str
    layout: str
    format: str = PREDICTIONS_FORMAT
    rows: int = 0
    models: dict[str, int] = Field(default_factory=dict)
    """Responses stored per model name."""
    ok: int = 0
    unparseable: int = 0
    refused: int = 0
    missing: int = 0
    """Empty/NaN/failed cells, stored as error responses ("no prediction ...")."""
    unmatched: int = 0
    unmatched_keys: list[str] = Field(default_factory=list)
    """The first :data:`SHOWN_KEYS` rows that match no item: "row N: <key>"."""


def model_from_file_name(path: Path, datasets: list[str]) -> str | None:
    """The model of a VLMEvalKit ``{model}_{dataset}`` file name, given the names the dataset
    may have (the benchmark's name, the stems of its source files); None when none fits."""
    stem = path.stem
    for dataset in sorted(datasets, key=len, reverse=True):
        suffix = f"_{dataset}"
        if dataset and stem.lower().endswith(suffix.lower()) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return None


def _model_name(parsed: PredictionFile, prediction: Prediction, model: str | None) -> str:
    if model is not None:
        return model
    if prediction.model is not None:
        return prediction.model
    hint = (
        "the file name is not {model}_{dataset} for this benchmark"
        if parsed.layout == "vlmeval"
        else "the file does not name its model"
    )
    raise DatasetError(parsed.path, f"{hint}; pass --model NAME")


def _missing(path: Path, prediction: Prediction, item: BenchmarkItem, model: str) -> Response:
    return Response(
        item_id=item.id,
        model=model,
        text="",
        status=Status.ERROR,
        reason=(
            f"no prediction in {path.name} row {prediction.row}, column "
            f"{prediction.column!r} (empty cell)"
        ),
    )


def _response(path: Path, prediction: Prediction, item: BenchmarkItem, model: str) -> Response:
    text = prediction.text
    if text is None:
        return _missing(path, prediction, item, model)
    if VLMEVAL_FAILURE in text:
        failed = _missing(path, prediction, item, model)
        reason = f"the model's call failed ({path.name} row {prediction.row}: {text[:80]!r})"
        return failed.model_copy(update={"text": text, "reason": reason})
    return score_output(item, model, ModelOutput(text=text))


def _select_model(parsed: PredictionFile, model: str | None) -> list[Prediction]:
    """The predictions to import: with several models in the file (VisIT-Bench columns),
    ``model`` picks one of them; otherwise it names the file's one model."""
    named = sorted({p.model for p in parsed.predictions if p.model is not None})
    if model is None or len(named) <= 1:
        return parsed.predictions
    if model not in named:
        raise DatasetError(
            parsed.path,
            f"the file has predictions of several models ({', '.join(named)}); --model "
            f"{model!r} is none of them",
        )
    return [p for p in parsed.predictions if p.model == model]


def _tally(summary: PredictionSummary, response: Response) -> None:
    summary.models[response.model] = summary.models.get(response.model, 0) + 1
    if response.status is Status.OK:
        summary.ok += 1
    elif response.status is Status.UNPARSEABLE:
        summary.unparseable += 1
    elif response.status is Status.REFUSED:
        summary.refused += 1
    else:
        summary.missing += 1


def _check_duplicates(path: Path, pairs: list[tuple[Prediction, BenchmarkItem, str]]) -> None:
    seen: dict[tuple[str, str], Prediction] = {}
    for prediction, item, model in pairs:
        first = seen.setdefault((model, item.id), prediction)
        if first is not prediction:
            raise DatasetError(
                path,
                f"{prediction.key} answers the same item as row {first.row} for model "
                f"{model!r}; expected one prediction per item",
                row=prediction.row,
                column=prediction.column,
            )


def import_predictions(
    store: Store,
    path: str | Path,
    benchmark: str,
    *,
    model: str | None = None,
    strict: bool = False,
) -> PredictionSummary:
    """Store the predictions in ``path`` as responses on ``benchmark`` (which must exist) under
    ``model`` (else the name the file gives). DatasetError, with nothing written, for a bad
    file, an unknown model name, or (``strict``) rows that match no item. Re-importing
    replaces the model's earlier responses on the same items."""
    path = Path(path)
    stored = get_benchmark(store, benchmark)
    if stored is None:
        raise DatasetError(
            path, f"no benchmark {benchmark!r} in the store; import its dataset first (--name)"
        )
    if model is not None and not model.strip():
        raise DatasetError(path, "--model must not be empty")
    sources = stored.data.sources if isinstance(stored.data, ImportedData) else []
    names = [benchmark, *(Path(s).stem for s in sources)]
    parsed = parse_prediction_file(path, model_from_file_name(path, names))
    chosen = _select_model(parsed, model)
    matched, unmatched = match_predictions(benchmark, iter_items(store, benchmark), chosen)
    summary = PredictionSummary(benchmark=benchmark, source=str(path), layout=parsed.layout)
    summary.rows = len({p.row for p in chosen})
    summary.unmatched = len(unmatched)
    summary.unmatched_keys = [f"row {p.row}: {p.key}" for p in unmatched[:SHOWN_KEYS]]
    if strict and unmatched:
        shown = "; ".join(summary.unmatched_keys)
        raise DatasetError(
            path,
            f"{len(unmatched)} row(s) match no item of {benchmark!r} (--strict): {shown}",
            row=unmatched[0].row,
        )
    if not matched:
        raise DatasetError(
            path,
            f"none of the {summary.rows} rows matches an item of {benchmark!r} (first: "
            f"{summary.unmatched_keys[0]}); is --name the benchmark these predictions are for?",
        )
    named = [(p, item, _model_name(parsed, p, model)) for p, item in matched]
    _check_duplicates(path, named)
    responses = [_response(path, p, item, name) for p, item, name in named]
    put_responses(store, responses)
    for response in responses:
        _tally(summary, response)
    return summary


# Detection for `lvlmbench import FILE`: a prediction file carries its dataset's columns (index,
# question, image_path...) plus the answers, so it is tried before the dataset rules.
register_format(
    FormatRule(
        PREDICTIONS_FORMAT,
        "XLSX/TSV/CSV: prediction, response or '<model> prediction' column; JSONL: "
        "id/index/question_id + answer/prediction/response/text, no question/image",
        lambda sample: looks_like_predictions(sample.path),
        priority=10,
    )
)
