"""The unsandboxed fallback of :mod:`ridgeline.sandbox`: rlimits, a uid of its own for a root
ridgeline's command, and the sweep that kills every process a command left."""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import logging
import os
import resource
import shutil
import signal
import time
from collections.abc import Callable, Sequence
from functools import cache

__all__ = ["TOKEN", "UID_BASE", "fallback_argv", "fresh_uid", "limits_preexec", "own_processes",
           "sweep"]

log = logging.getLogger("ridgeline.sandbox")

#: the variable that marks every process of one unsandboxed run (found and killed by it)
TOKEN = "RIDGELINE_RUN_TOKEN"
#: uids the commands of a root ridgeline drop to (one per command: the process limit counts
#: a uid's processes)
UID_BASE = 1_600_000_000
_uids = itertools.count()
#: prctl(PR_SET_PDEATHSIG)
_PR_SET_PDEATHSIG = 1


def own_processes(uid: int) -> int:
    """Tasks (threads included, as RLIMIT_NPROC counts them) *uid* runs now."""
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                n += len(os.listdir(f"/proc/{pid}/task"))
    return n


def limits_preexec(cpu: int, file_bytes: int, memory_bytes: int | None, nproc: int
                   ) -> Callable[[], None]:
    """The rlimits (and death with the parent) of an unsandboxed command, set in its
    process before it starts."""

    def apply() -> None:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    return apply


def fallback_argv(cmd: Sequence[str], unprivileged: bool) -> tuple[list[str], int | None]:
    """The unsandboxed command line, and the uid it runs as when ridgeline is root: the
    kernel does not apply the process limit to root, so a root ridgeline runs the command as
    a uid of its own (``setpriv``), which the limit binds and which is killed whole at the
    end. Its files stay reachable as before (the fallback does not isolate the filesystem):
    it keeps the capabilities to read and write them (``dac_read_search``,
    ``dac_override``), nothing else; no_new_privs keeps set-uid programs from giving root
    back."""
    if not (unprivileged and os.geteuid() == 0):
        return list(cmd), None
    if shutil.which("setpriv") is None:
        _warn_root_fallback()
        return list(cmd), None
    uid = fresh_uid()
    caps = "-all,+dac_override,+dac_read_search"
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            f"--inh-caps={caps}", f"--ambient-caps={caps}", f"--bounding-set={caps}",
            "--no-new-privs", "--pdeathsig=KILL", "--", *cmd], uid


@cache
def _warn_root_fallback() -> None:
    log.warning("setpriv (util-linux) not found: without the sandbox, programs run as root, "
                "whom the process limit does not bind")


def fresh_uid() -> int:
    """A uid (and gid) of its own for one command of a root ridgeline."""
    return UID_BASE + (os.getpid() * 64 + next(_uids)) % 1_000_000


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of *uid*, from a child running as *uid*: ``kill(-1)`` signals
    them all under one lock of the kernel's task list, so none can fork a new one in
    between (a fork bomb is stopped whole); repeated until none is left alive."""
    for _ in range(50):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child only signals and exits
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if not _alive_of(uid):
            return
        time.sleep(0.02)


def _alive_of(uid: int) -> bool:
    """Whether a process of *uid* is still running (zombies are dead)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[-1].split()[0] != b"Z":
                    return True
        except (OSError, IndexError):
            continue
    return False


def sweep(token: str, leader: int, uid: int | None = None) -> None:
    """Kill the run's process group, every process of its own *uid* (a root ridgeline's
    command), and every process whose environment carries *token* (children that left the
    group with setsid), until three passes in a row find none: a process that ends between
    a pass's listing and its look may have just started a child the listing missed (best
    effort: a program can clear its environment, not change its uid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, signal.SIGKILL)
    if uid is not None:
        _kill_uid(uid)
    mark = f"{TOKEN}={token}".encode()
    empty = 0
    for _ in range(200):
        found = 0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    marked = mark in f.read().split(b"\0")
                if marked:
                    os.kill(int(pid), signal.SIGKILL)
                    found += 1
            except OSError:
                continue
        empty = 0 if found else empty + 1
        if empty == 3:
            return
        time.sleep(0.02)
