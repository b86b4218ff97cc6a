"""Ask a Ray GCS for an answer, in a process of its own: ``python -m
lvlmbench.models._ray_probe ADDRESS`` prints ``ok``, ``skip`` (this Ray has no client to ask
with) or ``error: WHY``.

Ray's GCS client retries in native code for about a minute when nothing answers. Asked from a
thread, it was still running in there when the program ended, and the interpreter's shutdown
crashed under it (exit status 139 where the command had said why and exited 2). A process can
be killed when its time is up; this one also ends without Python's shutdown, for the client's
threads that a successful connection leaves behind.
"""

from __future__ import annotations

import os
import sys


def _answer(address: str) -> str:
    try:
        import ray._raylet
    except ImportError:
        return "skip"
    # What ray.init connects with; not part of Ray's public API, so looked up, never assumed.
    client = getattr(ray._raylet, "GcsClient", None)
    if client is None:
        return "skip"
    try:
        client(address=address)
    except Exception as exc:  # any failure is the answer, said in one line
        return "error: " + " ".join(str(exc).split())[:200]
    return "ok"


def main() -> None:
    sys.stdout.write(_answer(sys.argv[1]) + "\n")
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown under the client's native threads


if __name__ == "__main__":
    main()
