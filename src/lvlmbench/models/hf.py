"""Local Hugging Face transformers vision-language models (LLaVA, Idefics3/SmolVLM, ...).

``hf/<directory or repo id>``. Options: ``device`` (auto: cuda, then mps, then cpu), ``dtype``
(auto, float32, bfloat16, float16), ``batch_size`` (``auto``, the default: on a GPU the most rows
the device memory holds for the run's prompt, image and max-token shape, found by a probe on the
first rows and halved on any out-of-memory error, at most ``max_batch_size``, default 256; on a
CPU 8), ``continuous`` (default false: each batch is one ``generate`` call; true: rows leave
the batch as they finish and waiting requests take their place), ``overlap`` (default true:
images and prompts of the next rows are prepared on a thread of their own while the model
generates), ``decode_threads`` (threads that decode a group's images; default the CPU count, at
most 8), ``image_device`` (``auto``, the default: a torchvision image processor resizes and
normalises on the model's GPU, on a stream of its own; ``cpu``: on the CPU), ``devices`` (``all``
or a comma list such
as ``cuda:0,cuda:1``: one replica per device, requests spread over them) and ``replicas`` (that
many replicas, cycling over the devices), ``revision``, ``trust_remote_code`` (default false) and
``local_files_only`` (default true: a repo id must already be in the Hugging Face cache, so an
offline run never waits on the hub; pass false to allow downloads). ``ray=true`` runs the same
model on a Ray actor pool (``actors``, ``num_gpus`` per actor, ``ray_address``; the ``ray``
extra; see :mod:`lvlmbench.models._hf_ray`).

Weights load on the first call, once per replica. Greedy decoding when temperature is 0;
otherwise each request samples with its own ``torch.Generator`` seeded from its seed and epoch,
so sampled answers reproduce whatever else shares their batch. ``json_schema`` is not enforced
here (no constrained decoding): :meth:`~lvlmbench.models.ModelClient.generate_json` still
extracts, validates and re-asks.
"""

from __future__ import annotations

from collections.abc import Mapping

# Not used here, imported first on purpose: this module is the registry's entry for hf/..., and
# without the hf extra its import must fail at once, whatever else is already loaded.
import torch  # noqa: F401

from lvlmbench.models._hf_load import parse_hf_settings
from lvlmbench.models._hf_model import HFChatModel
from lvlmbench.models._local import ray_missing, wants_ray

__all__ = ["HFChatModel", "create"]


def create(name: str, options: Mapping[str, str]) -> HFChatModel:
    """Registry factory: ``hf/<path or repo id>`` with the options of this module's docstring;
    ``ray=true`` (with ``actors``, ``num_gpus``, ``ray_address``) runs the same model on a Ray
    actor pool (the ``ray`` extra)."""
    settings = parse_hf_settings(options)
    if not wants_ray(options):
        return HFChatModel(name, settings)
    if settings.devices is not None or settings.replicas is not None:
        raise ValueError("options devices and replicas: with ray=true give actors instead")
    try:
        # Same package, imported only when asked for: Ray is an optional extra.
        from lvlmbench.models._hf_ray import RayHFChatModel
        from lvlmbench.models._ray import ray_settings
    except ImportError as exc:
        raise ray_missing(exc) from None
    return RayHFChatModel(name, ray_settings(options), settings)
