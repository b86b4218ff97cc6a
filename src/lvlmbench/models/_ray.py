"""Ray Data plumbing shared by the local back-ends (``hf/…`` and ``diffusers/…``) run on Ray.

A chunk of requests becomes one ``ray.data`` Dataset; ``map_batches`` runs it on a pool of
``actors`` actors (``ActorPoolStrategy``), each holding the model on ``num_gpus`` GPUs, and the
answers stream back through ``iter_batches``. Requests and answers cross as pickled bytes so
any pydantic model travels; a per-row error comes back as data and is raised to its own caller.

Ray is an optional extra (``pip install lvlmbench[ray]``); only the ``*_ray`` modules import it.
Ray Data starts fresh actors for every Dataset, so a chunk loads the weights once per actor.
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import ray
import ray.data

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._local import parse_positive_int

__all__ = [
    "ActorPoolRunner",
    "PoolActor",
    "RaySettings",
    "actor_options",
    "pool_failure",
    "ray_settings",
]

Q = TypeVar("Q")
A = TypeVar("A")


@dataclass(frozen=True)
class RaySettings:
    """Where and how wide the actor pool runs."""

    actors: int = 1
    num_gpus: float = 0.0
    """GPUs per actor (fractions share a GPU); 0 runs the actors on CPU."""
    address: str | None = None
    """Cluster to join (``ray://…`` or ``auto``); None starts or reuses a local one."""


def ray_settings(options: Mapping[str, str]) -> RaySettings:
    """The ``actors``, ``num_gpus`` and ``ray_address`` options of a spec."""
    raw = options.get("num_gpus")
    try:
        num_gpus = float(raw) if raw else 0.0
    except ValueError:
        raise ValueError(f"option num_gpus={raw!r}: expected a number") from None
    if num_gpus < 0:
        raise ValueError(f"option num_gpus={raw!r}: must be 0 or more")
    return RaySettings(
        actors=parse_positive_int(options.get("actors"), 1, "actors"),
        num_gpus=num_gpus,
        address=options.get("ray_address") or None,
    )


@dataclass(frozen=True)
class _Failure:
    """A per-row error sent back as data: exceptions with keyword fields do not unpickle."""

    message: str
    kind: str
    hint: str | None
    status_code: int | None


def _encode(result: object) -> bytes:
    if isinstance(result, ProviderError):
        return pickle.dumps(
            _Failure(str(result), result.kind.value, result.hint, result.status_code)
        )
    if isinstance(result, Exception):
        return pickle.dumps(_Failure(f"{type(result).__name__}: {result}", "fatal", None, None))
    return pickle.dumps(result)


def _decode(blob: bytes) -> Any:
    value = pickle.loads(blob)
    if isinstance(value, _Failure):
        return ProviderError(
            value.message, ErrorKind(value.kind), hint=value.hint, status_code=value.status_code
        )
    return value


class PoolActor(Generic[Q, A]):
    """One model replica in the pool: subclasses load the model in ``__init__`` (once per
    actor) and answer a batch in :meth:`answer`, one result or exception per request."""

    def answer(self, requests: list[Q]) -> list[A | Exception]:
        raise NotImplementedError

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        requests = [pickle.loads(blob) for blob in batch["request"]]
        results = self.answer(requests)
        encoded = np.empty(len(results), dtype=object)
        encoded[:] = [_encode(result) for result in results]
        return {"index": batch["index"], "output": encoded}


class ActorPoolRunner(Generic[Q, A]):
    """Runs chunks of requests through ``actor`` (built with ``settings``) on a Ray pool."""

    def __init__(
        self,
        actor: Callable[..., PoolActor[Q, A]],
        settings: object,
        pool: RaySettings,
        rows_per_batch: int,
        answer_type: type[A],
    ) -> None:
        self._actor = actor
        self._settings = settings
        self.pool = pool
        self.rows_per_batch = rows_per_batch
        self._answer_type = answer_type
        self._failure: ProviderError | None = None

    async def run_chunk(self, spec: str, requests: list[Q]) -> list[A | ProviderError]:
        """:meth:`run` off the event loop. A pool that failed as a whole (an actor could not
        load the model) fails every later chunk with the same FATAL error instead of starting
        actors again."""
        if self._failure is not None:
            raise self._failure
        try:
            return await asyncio.to_thread(self.run, requests)
        except Exception as exc:
            self._failure = pool_failure(spec, exc)
            raise self._failure from exc

    def run(self, requests: list[Q]) -> list[A | ProviderError]:
        """Blocking: one Dataset for the chunk; rows stream back as actors finish batches."""
        _ensure_ray(self.pool.address)
        rows = [{"index": i, "request": pickle.dumps(r)} for i, r in enumerate(requests)]
        # One block per model batch, so every actor of the pool gets a share of the chunk.
        blocks = -(-len(rows) // self.rows_per_batch)
        dataset = ray.data.from_items(rows, override_num_blocks=blocks).map_batches(
            self._actor,
            fn_constructor_kwargs={"settings": self._settings},
            batch_size=self.rows_per_batch,
            batch_format="numpy",
            # A fixed pool (``concurrency=`` is deprecated since Ray 2.51), no larger than the
            # chunk's block count: a spare actor would only load the weights.
            compute=ray.data.ActorPoolStrategy(size=min(self.pool.actors, blocks)),
            num_gpus=self.pool.num_gpus,
        )
        results: dict[int, A | ProviderError] = {}
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            for index, blob in zip(batch["index"], batch["output"], strict=True):
                value = _decode(blob)
                if not isinstance(value, ProviderError | self._answer_type):
                    raise TypeError(f"a Ray actor returned {type(value).__name__}")
                results[int(index)] = value
        missing = len(requests) - len(results)
        if missing:
            raise RuntimeError(f"Ray returned no answer for {missing} of {len(requests)} rows")
        return [results[i] for i in range(len(requests))]


def actor_options(options: dict[str, Any], pool: RaySettings) -> dict[str, Any]:
    """``options`` with ``device``/``dtype`` ``auto`` resolved for GPU actors: the driver may
    have no GPU, the actors will, so ``auto`` must not be resolved on the driver."""
    if pool.num_gpus <= 0:
        return options
    resolved = dict(options)
    if resolved.get("device", "auto") == "auto":
        resolved["device"] = "cuda"
    if resolved.get("dtype", "auto") == "auto":
        resolved["dtype"] = "bfloat16"
    return resolved


def pool_failure(spec: str, exc: Exception) -> ProviderError:
    """The FATAL error for a pool that failed as a whole (an actor could not load the model):
    every later chunk would fail alike."""
    text = f"{type(exc).__name__}: {exc}"[:500]
    return ProviderError(
        f"{spec}: the Ray actor pool failed: {text}",
        ErrorKind.FATAL,
        hint="check that the model path is readable on every Ray node, and num_gpus",
    )


def _ensure_ray(address: str | None) -> None:
    """Join ``address`` (or start a local cluster) unless this process already did."""
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
