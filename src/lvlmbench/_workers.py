"""A shared process pool for CPU-bound work (drawing scenes, checking pixels) beside asyncio.

Rendering and pixel checks are pure Python/Pillow/numpy and hold the GIL, so threads do not
run them in parallel; worker processes do. The pool is created on first use and sized by
``LVLMBENCH_WORKERS`` (default: the CPU count); ``LVLMBENCH_WORKERS=0`` runs everything in a
thread of this process instead, which is what a debugger or profiler wants.

Workers are forked from a clean *forkserver* process that has already imported the scene
package, never from the running program: forking a process that has threads (asyncio's
executor, database drivers) can deadlock the child.

Workers die with the program that started them, however it ends (kill -9 included): each one
watches that process and exits when it is gone. Nothing else would stop them: a worker holds
both ends of its job queue, so it never sees end-of-file, and the forkserver and the resource
tracker live until the last worker has gone.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

__all__ = [
    "preload_in_workers",
    "run_cpu",
    "start_in_process",
    "worker_count",
    "workers_setting_error",
]

P = ParamSpec("P")
T = TypeVar("T")

_PRELOAD: list[str] = []
"""Modules the forkserver imports once, so workers start with them loaded (see
:func:`preload_in_workers`)."""
_pool: ProcessPoolExecutor | None = None


def preload_in_workers(*modules: str) -> None:
    """Have the forkserver import ``modules`` before it forks the first worker.

    Each package that hands work to :func:`run_cpu` names its own modules when it is imported
    (this leaf module names none, so it never points up the package graph). The pool starts on
    first use, after those imports; a module named later is imported by each worker when its
    first job arrives instead, which is slower but the same."""
    for module in modules:
        if module not in _PRELOAD:
            _PRELOAD.append(module)


def worker_count() -> int:
    """Worker processes the pool uses (0: none, work runs in a thread)."""
    configured = os.environ.get("LVLMBENCH_WORKERS", "").strip()
    if configured:
        try:
            return max(0, int(configured))
        except ValueError:
            raise ValueError(
                f"LVLMBENCH_WORKERS={configured!r}: expected a whole number of processes"
            ) from None
    return _cpus()


@functools.cache
def _cpus() -> int:
    # Asked once: os.cpu_count() reads /sys (~30 µs), and the pool asks on every job it runs.
    return os.cpu_count() or 1


def workers_setting_error() -> str | None:
    """Why ``LVLMBENCH_WORKERS`` is unusable, or None: checked before a command writes anything."""
    try:
        worker_count()
    except ValueError as exc:
        return str(exc)
    return None


def _die_with(parent_pid: int) -> None:
    """Pool initializer: exit this worker as soon as ``parent_pid`` (the program) has ended."""
    threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _watch(parent_pid: int) -> None:
    try:
        # A pidfd becomes readable when the process exits: no polling, no pid-reuse race.
        pidfd = os.pidfd_open(parent_pid)
    except (AttributeError, OSError):  # not Linux >= 5.3, or the parent is already gone
        pidfd = None
    if pidfd is not None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.poll()
    else:
        while _alive(parent_pid):
            time.sleep(0.5)
    os._exit(1)  # skip cleanup: the job queue and results have nobody left to serve


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _executor() -> Executor | None:
    global _pool
    if worker_count() == 0:
        return None
    if _pool is None:
        _pool = _process_pool(worker_count())
        atexit.register(_shutdown)
    return _pool


def _process_pool(processes: int) -> ProcessPoolExecutor:
    """Processes forked from the clean forkserver (with :data:`_PRELOAD` imported), each dying
    with this program."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return ProcessPoolExecutor(
        max_workers=processes, mp_context=context, initializer=_die_with, initargs=(os.getpid(),)
    )


def _shutdown() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


def start_in_process(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """Start ``function(*args, **kwargs)`` now in a process of its own and return its future: a
    whole flow that runs beside this program's (on a machine whose cores this one leaves idle
    part of the time). Forked from the same clean forkserver as the workers, it dies with this
    program like them; with workers off (``LVLMBENCH_WORKERS=0``) it runs on a thread here."""
    pool: Executor
    if worker_count() == 0:
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="flow")
    else:
        pool = _process_pool(1)
        function = functools.partial(_flow, function)
    future = pool.submit(function, *args, **kwargs)
    pool.shutdown(wait=False)  # the one job still runs; the process ends after it
    return future


def _flow(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Runs a flow in its process, then ends the worker pool the flow started there: nothing
    shuts a pool down in a pool's own process (atexit handlers do not run there), and its
    live workers would keep the flow's process — and so the program — from ever exiting."""
    try:
        return function(*args, **kwargs)
    finally:
        _shutdown()


async def run_cpu(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in a worker process (a thread when workers are off).

    ``function`` must be importable at module level and its arguments picklable. A pool whose
    worker died (killed by the OOM killer, say) is replaced once before the error surfaces.
    """
    call = functools.partial(function, *args, **kwargs)
    executor = _executor()
    if executor is None:
        return await asyncio.to_thread(call)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(executor, call)
    except BrokenProcessPool:
        _shutdown()
        return await loop.run_in_executor(_executor(), call)
