"""Procedural mode's model hook: the examiner turns a description into a scene program.

The renderer then draws the program exactly, so the ground truth is exact. The schema is a
parameter (normally :class:`lvlmbench.scenes.SceneProgram`), so this stage does not depend on
the scenes package; :meth:`ModelClient.generate_json` validates the reply against it and
re-asks with the validation error, which names the offending JSON path.
"""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel

from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.models import ModelClient
from lvlmbench.types import GenerationConfig

__all__ = ["write_scene_program"]

M = TypeVar("M", bound=BaseModel)

_CONFIG = GenerationConfig(temperature=0.0, max_tokens=3000)
_REDRAW_TEMPERATURE = 0.7


async def write_scene_program(
    examiner: ModelClient,
    description: str,
    schema_model: type[M],
    *,
    max_reasks: int = 2,
    attempt: int = 0,
    seed: int | None = None,
) -> StageResult[M]:
    """A scene program for ``description`` valid against ``schema_model``, or why not.

    ``attempt`` > 0 asks again for a unit whose image was rejected: a new cache entry (the
    epoch), some sampling temperature and the attempt's ``seed`` (as an image redraw is
    seeded), so the redraw is a request of its own and not the rejected program replayed.
    """
    schema = json.dumps(schema_model.model_json_schema(), separators=(",", ":"))
    messages = writer_messages("autobench/scene_program.md", description=description, schema=schema)
    config = _CONFIG
    if attempt:
        config = _CONFIG.model_copy(
            update={"epoch": attempt, "temperature": _REDRAW_TEMPERATURE, "seed": seed}
        )
    result = await examiner.generate_json(messages, schema_model, config, max_reasks)
    return StageResult.from_structured(result)
