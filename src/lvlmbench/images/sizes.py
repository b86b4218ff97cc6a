"""Which square image sizes a text-to-image spec can draw, decided from the spec alone (no
weights loaded, no request sent), so ``generate --image-size N`` refuses a size the back-end
would reject before the first paid request rather than after it.

- ``procedural``: the scene canvas' bounds (:class:`lvlmbench.scenes.Canvas`).
- ``diffusers``: a multiple of the VAE's downsampling (8; 16 for the Flux and Stable Diffusion 3
  families, whose transformer also packs latents in 2 x 2 patches, when a local pipeline's
  ``model_index.json`` names one).
- ``openai`` on OpenAI's own API: the sizes the named model accepts (a ``size=WxH`` option is
  checked instead, the image then resized to what was asked). A compatible server
  (``base_url=...``) or a model not in the table decides for itself.
Any other provider (registered by a plugin) is not checked here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from lvlmbench.images._registry import IMAGE_PROVIDERS
from lvlmbench.models import ModelSpec, resolve_model
from lvlmbench.scenes import Canvas

__all__ = ["OPENAI_SIZES", "check_image_size", "image_size_problem"]

OPENAI_SIZES: Mapping[str, tuple[str, ...]] = {
    "dall-e-2": ("256x256", "512x512", "1024x1024"),
    "dall-e-3": ("1024x1024", "1792x1024", "1024x1792"),
    "gpt-image-": ("1024x1024", "1536x1024", "1024x1536"),
}
"""The ``size`` values OpenAI's Images API accepts per model (a name ending in ``-`` is a
prefix: the gpt-image family)."""
_HOSTED = "https://api.openai.com/v1"
_PATCHED_FAMILIES = ("Flux", "StableDiffusion3")
"""Pipeline classes whose latents are packed in 2 x 2 patches: sizes a multiple of 16."""


def _procedural(spec: ModelSpec, size: int) -> str | None:
    del spec
    bounds = [
        next(getattr(m, bound) for m in Canvas.model_fields["width"].metadata if hasattr(m, bound))
        for bound in ("ge", "le")
    ]
    low, high = int(bounds[0]), int(bounds[1])
    if low <= size <= high:
        return None
    return f"the procedural renderer draws {low} to {high} pixels a side"


def _pipeline_class(name: str) -> str:
    """The pipeline class a local diffusers directory names ('' when it is no directory or
    its model_index.json cannot be read: a hub id is checked at the common rule)."""
    index = Path(name).expanduser() / "model_index.json"
    try:
        return str(json.loads(index.read_text(encoding="utf-8")).get("_class_name", ""))
    except (OSError, ValueError, AttributeError):
        return ""


def _diffusers(spec: ModelSpec, size: int) -> str | None:
    pipeline = _pipeline_class(spec.name)
    step = 16 if pipeline.startswith(_PATCHED_FAMILIES) else 8
    if size % step == 0:
        return None
    what = pipeline or "a diffusers pipeline"
    lower, upper = size // step * step, (size // step + 1) * step
    near = f"{lower} or {upper}" if lower else str(upper)
    return f"{what} draws sizes that are a multiple of {step} (e.g. {near})"


def _openai_sizes(name: str) -> tuple[str, ...] | None:
    for model, sizes in OPENAI_SIZES.items():
        if name == model or (model.endswith("-") and name.startswith(model)):
            return sizes
    return None


def _openai(spec: ModelSpec, size: int) -> str | None:
    if spec.options.get("base_url", _HOSTED).rstrip("/") != _HOSTED:
        return None  # a compatible server: its own sizes, unknown here
    sizes = _openai_sizes(spec.name)
    if sizes is None:
        return None
    fixed = spec.options.get("size")
    # With size=WxH the API is asked for that size and the image resized to the one wanted.
    asked = fixed.replace(" ", "") if fixed else f"{size}x{size}"
    if asked in sizes:
        return None
    if fixed:
        return f"OpenAI's {spec.name} draws {', '.join(sizes)}, not its size option {asked}"
    squares = [int(w) for w, _, h in (s.partition("x") for s in sizes) if w == h]
    return (
        f"OpenAI's {spec.name} draws {', '.join(sizes)}, not {asked}: give --image-size "
        f"{' or '.join(map(str, squares))}, or size={max(squares)}x{max(squares)} in the spec "
        f"to draw at that size and resize to {size}"
    )


_RULES: Mapping[str, Callable[[ModelSpec, int], str | None]] = {
    "procedural": _procedural,
    "diffusers": _diffusers,
    "openai": _openai,
}


def image_size_problem(spec: str, size: int) -> str | None:
    """Why ``spec`` cannot draw ``size`` x ``size`` pixels, or None when it can (or its
    provider has no rule here); RegistryError for a spec that does not resolve."""
    resolved = resolve_model(spec, IMAGE_PROVIDERS).spec
    rule = _RULES.get(resolved.provider)
    return None if rule is None else rule(resolved, size)


def check_image_size(spec: str, size: int) -> None:
    """ValueError naming the size and what ``spec`` draws instead, when it cannot draw it."""
    if size < 1:
        raise ValueError(f"--image-size {size}: expected a number of pixels, at least 1")
    problem = image_size_problem(spec, size)
    if problem is not None:
        raise ValueError(f"--image-size {size}: {problem}")
