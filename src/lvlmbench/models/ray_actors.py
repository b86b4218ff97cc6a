"""What a back-end served by Ray actors builds on (the ``ray=true`` option). Needs Ray: import
it only when a spec asks for it."""

from lvlmbench.models._ray import (
    ActorPoolRunner,
    PoolActor,
    RaySettings,
    actor_options,
    pool_failure,
    ray_settings,
)

__all__ = [
    "ActorPoolRunner",
    "PoolActor",
    "RaySettings",
    "actor_options",
    "pool_failure",
    "ray_settings",
]
