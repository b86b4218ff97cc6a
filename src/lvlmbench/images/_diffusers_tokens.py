"""How much of a prompt a diffusers pipeline's text encoders read: its own tokenizer(s), loaded
as the pipeline loads them (the classes ``model_index.json`` names) but without the weights, so
a description past CLIP's 77 tokens is found whether or not an image is drawn this run.

Stable Diffusion and SDXL read only CLIP (77 tokens: the rest of a prompt is cut); Flux and
SD3 also read T5 (512 / 256 tokens). A prompt counts as cut when it is longer than the encoder
that reads the most of it, so a Flux prompt of 100 tokens is not, an SDXL one is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lvlmbench.images._api import PromptLength

__all__ = ["PromptCounter"]

_UNBOUNDED = 1_000_000
"""transformers' "no limit" is a huge ``model_max_length`` (int(1e30)): above this, none."""


def _model_index(path: str, revision: str | None, local_files_only: bool) -> dict[str, Any]:
    directory = Path(path)
    if directory.is_dir():
        text = (directory / "model_index.json").read_text(encoding="utf-8")
    else:
        from huggingface_hub import hf_hub_download

        found = hf_hub_download(
            path, "model_index.json", revision=revision, local_files_only=local_files_only
        )
        text = Path(found).read_text(encoding="utf-8")
    index: dict[str, Any] = json.loads(text)
    return index


def _tokenizers(path: str, revision: str | None, local_files_only: bool) -> list[tuple[str, Any]]:
    """(label, tokenizer) for each tokenizer the pipeline names, in its order."""
    import transformers

    found = []
    for key, entry in _model_index(path, revision, local_files_only).items():
        if not key.startswith("tokenizer") or not isinstance(entry, list) or None in entry:
            continue
        cls = getattr(transformers, str(entry[1]))
        tokenizer = cls.from_pretrained(
            path, subfolder=key, revision=revision, local_files_only=local_files_only
        )
        found.append((f"{key} ({entry[1]})", tokenizer))
    return found


class PromptCounter:
    """A pipeline's tokenizers, loaded on first use; :meth:`measure` a prompt with them."""

    def __init__(self, path: str, revision: str | None, local_files_only: bool) -> None:
        self.path, self.revision, self.local_files_only = path, revision, local_files_only
        self._loaded: list[tuple[str, Any]] | None = None

    def measure(self, prompt: str) -> PromptLength | None:
        """The encoder that reads the most of ``prompt`` (its tokens, its limit); None when
        the pipeline names no tokenizer with a limit or they cannot be loaded here."""
        if self._loaded is None:
            try:
                self._loaded = _tokenizers(self.path, self.revision, self.local_files_only)
            except (OSError, ValueError, AttributeError, ImportError):
                self._loaded = []  # not on this machine (a Ray worker's path): said as None
        lengths = [
            PromptLength(
                len(tokenizer(prompt, verbose=False).input_ids),
                int(tokenizer.model_max_length),
                label,
            )
            for label, tokenizer in self._loaded
            if 0 < tokenizer.model_max_length < _UNBOUNDED
        ]
        if not lengths:
            return None
        # The encoder with the most room left decides whether anything is cut at all.
        return max(lengths, key=lambda length: length.limit - length.tokens)
