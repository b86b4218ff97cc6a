"""Which process holds a lease, and whether that process is certainly gone.

A lease records its owner's host name, pid and start. A run that finds units leased by a process
of its own host can look that process up: when the pid no longer runs, or runs a process started
at another moment (the pid was reused), the owner is gone and its leases are taken over at once,
instead of after the lease period (a run resumed right after ``kill -9`` used to wait a minute in
silence). Anything less than certain (another host, another pid namespace, a platform where the
start cannot be read) is treated as alive: its leases expire as before.

On Linux the start is ``BOOT_ID:PID_NAMESPACE:START_TICKS`` (``/proc``): the boot and the pid
namespace say whether a pid means the same process here (a container sharing the host name but
not the pid namespace does not match), the start tick says whether it is still the process that
took the lease.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass

__all__ = ["HOST_MAX", "STARTED_MAX", "ProcessId", "process_gone", "this_process"]

HOST_MAX = 255
"""Longest host name a lease keeps (the column's width)."""
STARTED_MAX = 96
"""Width of the lease's ``started`` column (a boot id, a namespace and a tick count fit)."""


@dataclass(frozen=True)
class ProcessId:
    """A process as a lease records it."""

    host: str
    pid: int
    started: str | None
    """``BOOT_ID:PID_NAMESPACE:START_TICKS`` on Linux; None where it cannot be read."""

    @property
    def label(self) -> str:
        """``HOST:PID``, as messages name the process."""
        return f"{self.host}:{self.pid}"


def this_process() -> ProcessId:
    """This process (read again after a fork: the child is another process)."""
    pid = os.getpid()
    return ProcessId(socket.gethostname()[:HOST_MAX], pid, _started(pid))


def process_gone(holder: ProcessId) -> bool:
    """True only when ``holder`` certainly no longer runs: it is on this host (same name, and on
    Linux the same boot and pid namespace) and its pid is not running, is a zombie, or belongs
    to a process started at another moment. False when alive or when it cannot be told."""
    here = this_process()
    if holder.host != here.host or holder.pid <= 0:
        return False
    if sys.platform.startswith("linux"):
        if holder.started is None or here.started is None:
            return False
        context = _context(here.started)
        if "?" in context or _context(holder.started) != context:
            return False  # another boot or pid namespace (or unknown): its pids are not ours
        return _started(holder.pid) != holder.started
    if os.name == "posix" and holder.started is None:
        try:
            os.kill(holder.pid, 0)  # signal 0 only asks whether the pid exists
        except ProcessLookupError:
            return True
        except OSError:
            return False  # exists (another user's): alive, or its pid was reused
        return False
    return False  # Windows: no cheap certain check; the lease expires as before


def _context(started: str) -> str:
    """The boot and pid namespace part of a Linux start."""
    return started.rpartition(":")[0]


def _started(pid: int) -> str | None:
    """``pid``'s start as leases record it; None when it is not running (or is a zombie), or
    when this platform has no ``/proc``."""
    ticks = _start_ticks(pid)
    if ticks is None:
        return None
    return f"{_boot_id()}:{_pid_namespace()}:{ticks}"[:STARTED_MAX]


def _start_ticks(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            line = stat.read()
    except OSError:
        return None
    # "pid (comm) state ppid ... starttime ...": comm may hold spaces and parentheses, so the
    # fields are counted from the last ")"; starttime is field 22, the 20th after comm.
    fields = line.rpartition(")")[2].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):  # a zombie has ended: it holds nothing
        return None
    return fields[19]


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            return boot.read().strip()
    except OSError:
        return "?"


def _pid_namespace() -> str:
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    except OSError:
        return "?"
    return link.partition("[")[2].rstrip("]") or "?"
