"""Ray plumbing shared by the local back-ends (``hf/…`` and ``diffusers/…``) run on Ray.

A model run on Ray owns a pool of ``actors`` Ray actors, each holding the model on ``num_gpus``
GPUs. The actors start with the model's first chunk of requests and live until the model is
closed, so the weights load once per actor per run (a Ray Data ``map_batches`` per chunk started
fresh actors, and loaded the weights again, for every chunk). A chunk is cut into batches that go
to whichever actor is idle; the answers come back as each batch finishes. Requests and answers
cross as pickled bytes so any pydantic model travels; a per-row error comes back as data and is
raised to its own caller.

Ray is an optional extra (``pip install lvlmbench[ray]``); only the ``*_ray`` modules import it.

Nothing about a pool is left for Ray to find out: before ``ray.init`` the back-end checks what
it can in seconds (:meth:`ActorPoolRunner` runs its ``precheck``): the weights of a pool that
starts a cluster on this machine, and the cluster address of one that joins a running cluster
(:func:`ray_address_problem`), which ``ray.init`` would otherwise retry for minutes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import pickle
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import ray

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._local import parse_positive_int

__all__ = [
    "ActorPoolRunner",
    "PoolActor",
    "RaySettings",
    "actor_options",
    "check_pool",
    "pool_failure",
    "ray_address_problem",
    "ray_settings",
    "ray_target",
]

Q = TypeVar("Q")
A = TypeVar("A")

ACTOR_EXIT_S = 30.0
"""Longest wait, when a pool closes, for its killed actors to have exited."""
PROBE_S = 3.0
"""How long the address check waits for a TCP connection to the cluster."""
GCS_PROBE_S = 10.0
"""How long it waits for the cluster's GCS to answer once the port accepts connections."""
GCS_PORT, CLIENT_PORT = 6379, 10001
"""Ray's default ports: a cluster's GCS (``HOST:PORT``), Ray Client (``ray://HOST:PORT``)."""


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
    actor, for the whole run) and answer a batch in :meth:`answer`, one result or exception
    per request."""

    def answer(self, requests: list[Q]) -> list[A | Exception]:
        raise NotImplementedError

    def answer_blobs(self, blobs: list[bytes]) -> list[bytes]:
        """:meth:`answer` on pickled requests, results pickled (errors as data)."""
        results = self.answer([pickle.loads(blob) for blob in blobs])
        return [_encode(result) for result in results]


class ActorPoolRunner(Generic[Q, A]):
    """Runs chunks of requests through ``actor`` (built with ``settings``) on a pool of Ray
    actors that live as long as this runner: the first chunk starts them (each loads the
    weights once), every later chunk reuses them, :meth:`close` ends them. A chunk is cut into
    batches of ``rows_per_batch`` rows, each given to the next idle actor (an actor with
    ``batches_per_actor`` > 1 is threaded and takes that many batches at once)."""

    def __init__(
        self,
        actor: Callable[..., PoolActor[Q, A]],
        settings: object,
        pool: RaySettings,
        rows_per_batch: int,
        answer_type: type[A],
        *,
        batches_per_actor: int = 1,
        precheck: Callable[[], None] | None = None,
    ) -> None:
        self._actor = actor
        self._precheck = precheck
        """Raises ProviderError for what would make the pool fail, before Ray is started."""
        self._settings = settings
        self.pool = pool
        self.rows_per_batch = rows_per_batch
        self.batches_per_actor = batches_per_actor
        """Batches an actor is given at once (a threaded actor when more than one)."""
        self._answer_type = answer_type
        self._failure: ProviderError | None = None
        self._handles: list[Any] = []
        self._idle: asyncio.Queue[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.actors_started = 0
        """Actors started so far: ``pool.actors`` for a whole run, however many chunks."""

    async def run_chunk(self, spec: str, requests: list[Q]) -> list[A | ProviderError]:
        """One result per request, in order. A pool that failed as a whole (an actor could
        not load the model) fails every later chunk with the same FATAL error instead of
        starting actors again."""
        if self._failure is not None:
            raise self._failure
        try:
            idle = await self._idle_actors()
            size = self.rows_per_batch
            batches = [requests[i : i + size] for i in range(0, len(requests), size)]
            answered = await asyncio.gather(*(self._run_batch(idle, b) for b in batches))
        except ProviderError as exc:  # the precheck's: it already says what is wrong
            self._failure = exc
            raise
        except Exception as exc:
            self._failure = pool_failure(spec, exc)
            raise self._failure from exc
        return [result for batch in answered for result in batch]

    async def _run_batch(self, idle: asyncio.Queue[Any], batch: list[Q]) -> list[A | ProviderError]:
        actor = await idle.get()
        try:
            blobs = await actor.answer_blobs.remote([pickle.dumps(r) for r in batch])
        finally:
            idle.put_nowait(actor)
        if len(blobs) != len(batch):
            raise RuntimeError(f"a Ray actor gave {len(blobs)} answers to {len(batch)} rows")
        results: list[A | ProviderError] = []
        for blob in blobs:
            value = _decode(blob)
            if not isinstance(value, ProviderError | self._answer_type):
                raise TypeError(f"a Ray actor returned {type(value).__name__}")
            results.append(value)
        return results

    async def _idle_actors(self) -> asyncio.Queue[Any]:
        """The queue of idle actors, starting the actors on first use. The queue belongs to
        the running event loop (a model reused under a new ``asyncio.run`` gets a new one
        over the same actors)."""
        loop = asyncio.get_running_loop()
        if self._idle is not None and self._loop is loop:
            return self._idle
        if not self._handles:
            if self._precheck is not None:
                await asyncio.to_thread(self._precheck)
            await asyncio.to_thread(_ensure_ray, self.pool.address)
            # The same resources for CPU and GPU actors: num_gpus=1 is this very path.
            remote = ray.remote(self._actor).options(
                num_cpus=1, num_gpus=self.pool.num_gpus, max_concurrency=self.batches_per_actor
            )
            self._handles = [remote.remote(self._settings) for _ in range(self.pool.actors)]
            self.actors_started += len(self._handles)
        idle: asyncio.Queue[Any] = asyncio.Queue()
        for _ in range(self.batches_per_actor):
            for handle in self._handles:
                idle.put_nowait(handle)
        self._idle, self._loop = idle, loop
        return idle

    def close(self) -> None:
        """End the actors and return once they have exited, so that their weights and devices
        are free for whatever runs next; a later chunk starts new ones."""
        handles, self._handles = self._handles, []
        self._idle = self._loop = None
        if ray.is_initialized():
            for handle in handles:
                ray.kill(handle)
            _wait_until_gone(handles)


def _wait_until_gone(handles: list[Any], timeout_s: float = ACTOR_EXIT_S) -> None:
    """Return once every actor of ``handles`` has exited (or ``timeout_s`` passed).

    ``ray.kill`` only asks: a call made right after it could still reach the actor and be
    answered (seen once in eight test runs), and the actor's GPU memory is not free until it
    has exited. Each actor is probed until its probe fails as a dead actor's does."""
    deadline = time.monotonic() + timeout_s
    for handle in handles:
        while time.monotonic() < deadline:
            try:
                ray.get(
                    handle.__ray_ready__.remote(), timeout=max(0.1, deadline - time.monotonic())
                )
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                break
            time.sleep(0.02)


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


def check_pool(spec: str, pool: RaySettings, check_weights: Callable[[], None]) -> None:
    """The checks a pool makes before Ray starts: the cluster address it joins answers
    (unless this process already joined one), and for a cluster started on this machine,
    ``check_weights`` (the weights are on this machine). Raises a FATAL ProviderError."""
    if not ray.is_initialized():
        problem = ray_address_problem(pool.address)
        if problem is not None:
            raise ProviderError(
                f"{spec}: {problem}",
                ErrorKind.FATAL,
                hint=f"ray_address takes ray://HOST:{CLIENT_PORT} (Ray Client) or "
                f"HOST:{GCS_PORT} (a cluster's GCS); check that the cluster is up",
            )
    if ray_target(pool.address) in (None, "local"):
        check_weights()


def ray_target(address: str | None) -> str | None:
    """The cluster ``ray.init(address=...)`` joins: ``address``, or for none (and ``auto``) the
    ``RAY_ADDRESS`` environment variable Ray reads; None (or ``local``) starts a cluster here."""
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if address in (None, "", "auto") and env:
        return env
    return address or None


def ray_address_problem(address: str | None) -> str | None:
    """Why the cluster ``address`` joins (see :func:`ray_target`) cannot be used, found in
    seconds, or None: a host that does not accept TCP connections on the port within
    ``PROBE_S`` (``ray.init`` would retry for minutes), a port on which no Ray GCS answers, or
    ``ray://`` without the Ray Client's package. Addresses Ray resolves itself (``auto`` with
    no environment variable, other schemes) are left to it: it fails those at once."""
    target = ray_target(address)
    if target is None or target in ("local", "auto"):
        return None
    if target.startswith("ray://"):
        if importlib.util.find_spec("grpc") is None:
            return "Ray Client (ray://) needs grpcio: pip install 'ray[client]'"
        host, port = _host_port(target.removeprefix("ray://"), CLIENT_PORT)
        return _tcp_problem(target, host, port)
    if "://" in target:
        return None
    host, port = _host_port(target, GCS_PORT)
    return _tcp_problem(target, host, port) or _gcs_problem(target)


def _host_port(address: str, default_port: int) -> tuple[str, int]:
    host, sep, port = address.rstrip("/").rpartition(":")
    if not sep or not port.isdigit():
        return address.rstrip("/").strip("[]"), default_port
    return host.strip("[]"), int(port)


def _tcp_problem(target: str, host: str, port: int) -> str | None:
    try:
        with socket.create_connection((host, port), timeout=PROBE_S):
            return None
    except TimeoutError:
        return f"ray_address {target}: no answer from {host}:{port} within {PROBE_S:.0f} s"
    except OSError as exc:
        return f"ray_address {target}: cannot connect to {host}:{port}: {exc.strerror or exc}"


def _gcs_problem(target: str) -> str | None:
    """Ask the GCS at ``target`` for its cluster id once (what ``ray.init`` asks first, and
    then retries 20 times), in a process of its own given ``GCS_PROBE_S`` (see _ray_probe:
    a thread left inside Ray's client crashed the program's exit)."""
    command = [sys.executable, "-m", "lvlmbench.models._ray_probe", target]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=GCS_PROBE_S)
    except subprocess.TimeoutExpired:  # the probe is killed: nothing of it outlives the check
        return f"ray_address {target}: no Ray GCS answered within {GCS_PROBE_S:.0f} s"
    answer = done.stdout.strip()
    if answer in ("ok", "skip"):
        return None
    if answer.startswith("error: "):
        return f"ray_address {target}: not a Ray cluster's GCS ({answer.removeprefix('error: ')})"
    said = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
    return f"ray_address {target}: the check of its GCS failed ({said[-1][:200]})"
