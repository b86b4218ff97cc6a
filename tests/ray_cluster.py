"""A local Ray cluster for the ``…?ray=true`` tests: 2 CPUs, no dashboard, its own temp dir.

Started once per test module (it takes seconds) and shut down after, so no process outlives it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["local_ray_cluster"]


@contextmanager
def local_ray_cluster(num_cpus: int = 2) -> Iterator[None]:
    import ray

    # A short temp dir: Ray's unix sockets live under it and their paths are length-limited.
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    try:
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
