"""Local text-to-image pipelines from Hugging Face diffusers (Stable Diffusion, SDXL, ...).

``diffusers/<directory or repo id>``. Options: ``device`` (auto: cuda, then mps, then cpu),
``dtype`` (auto, float32, bfloat16, float16), ``steps`` (default 30) and ``guidance`` (default
7.5) for requests that do not set them, ``revision``, ``local_files_only`` (default true: a repo
id must already be in the Hugging Face cache; pass false to allow downloads).

The pipeline loads on the first request, once. Each image starts from noise drawn by a CPU
``torch.Generator`` seeded with the request's seed, so the same request gives the same picture
on any device with the same weights. A pipeline's safety checker flagging an image turns the
output into a refusal; the blacked-out image is not returned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from lvlmbench.images._diffusers_pipeline import DiffusersTextToImage
from lvlmbench.models.local import local_settings, parse_positive_int, ray_missing, wants_ray

__all__ = ["DiffusersTextToImage", "create"]


def create(name: str, options: Mapping[str, str]) -> DiffusersTextToImage:
    """Registry factory: ``diffusers/<path or repo id>`` with options device, dtype, steps,
    guidance, revision, local_files_only; ``ray=true`` (with ``actors``, ``num_gpus``,
    ``ray_address``) renders on a Ray actor pool (the ``ray`` extra)."""
    try:
        guidance = float(options.get("guidance", 7.5))
    except ValueError:
        raise ValueError(f"option guidance={options['guidance']!r}: expected a number") from None
    local = local_settings(options)
    steps = parse_positive_int(options.get("steps"), 30, "steps")
    if not wants_ray(options):
        return DiffusersTextToImage(
            name,
            device=local.device,
            dtype=local.dtype,
            steps=steps,
            guidance=guidance,
            revision=local.revision,
            local_files_only=local.local_files_only,
        )
    try:
        # Same package, imported only when asked for: Ray is an optional extra.
        from lvlmbench.images._diffusers_ray import RayDiffusersTextToImage
        from lvlmbench.models.ray_actors import ray_settings
    except ImportError as exc:
        raise ray_missing(exc) from None
    # The actors take the same keywords, in the options Ray hands each one.
    settings = {**dataclasses.asdict(local), "steps": steps, "guidance": guidance}
    return RayDiffusersTextToImage(name, ray_settings(options), **settings)
