"""The resident memory of a process tree, and the watch that stops a tree over its budget.

A sandboxed program's address space may be large (device buffers are reserved, not
committed, as a GPU's memory is the program's whatever the host's RAM): what a run may use
is bounded by the memory its processes touch. :class:`ResidentWatch` reads it from
``/proc`` (no cgroup needed): each process's resident set, summed over every descendant of
the command's first process.
"""

from __future__ import annotations

import contextlib
import os
import time

__all__ = ["ResidentWatch", "tree_pids", "resident_bytes", "over_budget_reason"]

_PAGE = os.sysconf("SC_PAGE_SIZE")
_GIB = float(1 << 30)
#: seconds between two searches of /proc for the tree's new processes
RESCAN_S = 1.0


def tree_pids(root: int) -> list[int]:
    """*root* and every descendant process of it (read from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            # the command name may hold spaces and parentheses: fields follow the last ')'
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def resident_bytes(pids: list[int]) -> int:
    """The resident memory of *pids*, summed (processes gone meanwhile count nothing)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError), \
                open(f"/proc/{pid}/statm", "rb") as f:
            total += int(f.read().split()[1]) * _PAGE
    return total


def over_budget_reason(used: int, budget: int) -> str:
    """The one wording of a run stopped for the memory it touched."""
    return (f"touched {used / _GIB:.1f} GiB, more than the {budget / _GIB:g} GiB budget "
            "(resident memory of the program's processes)")


class ResidentWatch:
    """Polled by the sandbox: the reason to stop the tree of *root* once its resident memory
    passes *budget* bytes (None while it does not). The tree's processes are searched anew
    every :data:`RESCAN_S` seconds; their resident sets are read at every poll."""

    def __init__(self, root: int, budget: int) -> None:
        self.root, self.budget = root, budget
        self.pids: list[int] = [root]
        self.scanned = 0.0
        self.peak = 0

    def __call__(self) -> str | None:
        now = time.monotonic()
        if now - self.scanned >= RESCAN_S:
            self.pids, self.scanned = tree_pids(self.root), now
        used = resident_bytes(self.pids)
        self.peak = max(self.peak, used)
        return over_budget_reason(used, self.budget) if used > self.budget else None
