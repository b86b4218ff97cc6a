"""Prompt, image and scoring hooks for the lmms-eval side of bench/bench_peer.py.

Imported by lmms-eval from the task YAML beside this file (run in the peer venv, not ours).
"""

from __future__ import annotations

import re
from typing import Any

_LETTER = re.compile(r"\b([A-D])\b")


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return [doc["image"].convert("RGB")]


def doc_to_text(
    doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None
) -> str:
    letters = zip("ABCD", doc["options"], strict=True)
    options = "\n".join(f"{letter}. {text}" for letter, text in letters)
    return f"{doc['question']}\n{options}\nAnswer with the option's letter."


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, float]:
    reply = results[0]
    text = reply if isinstance(reply, str) else str(getattr(reply, "text", reply))
    found = _LETTER.search(text)
    return {"accuracy": float(found is not None and found.group(1) == doc["answer"])}
