"""Oclgrind counts of a recorded launch at its real arguments and sizes, with work-groups
sampled for large launches (the first and the last group run, the counts scaled to the
launch, as count-run samples CUDA blocks), cached on disk by everything that decides them.

    lc = count_launch(RecordedLaunch.from_json(src, "gemm", "512,512", "32,8", args))
    lc.counts.flops_sp, lc.note
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline import errors
from ridgeline._atomic import write_text_atomic
from ridgeline.errors import CompileError, ExecutionError
from ridgeline.opencl.launchargs import RecordedLaunch, oclgrind_args
from ridgeline.profiles.oclgrind import OclgrindCounts, count_kernel, plugin_path

__all__ = ["LaunchCounts", "count_launch", "SAMPLE_ABOVE_GROUPS", "COUNT_TIMEOUT"]

#: a launch of more work-groups than this runs its first and last group only
SAMPLE_ABOVE_GROUPS = 2
#: seconds one launch's count may take
COUNT_TIMEOUT = 20.0
#: work-items of a counted group of a kernel that does not depend on its work-group
GROUP_FREE_ITEMS = 32
#: seconds the count in such groups may take before single work-items are counted instead
FIRST_TRY = 8.0
_VERSION = "2"
#: what makes a kernel depend on how its work-items are grouped
_GROUP_WORDS = re.compile(r"\b(barrier|work_group_\w+|get_local_id|get_group_id|get_local_size"
                          r"|get_num_groups|get_enqueued_local_size|mem_fence|\w*sub_group\w*"
                          r"|async_work_group\w*|__local|local)\b")


@dataclass
class LaunchCounts:
    """The counts of one launch, how they were taken, and what the count cost."""

    counts: OclgrindCounts
    note: str
    seconds: float
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts.to_dict(), "note": self.note, "seconds": self.seconds}


def _cache_dir() -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    return Path(base) / "oclcount"


def _key(launch: RecordedLaunch, sample_above: int | None) -> str:
    text = json.dumps([_VERSION, launch.src, launch.kernel, launch.build_options,
                       launch.global_dims, launch.local(), launch.args, sample_above,
                       plugin_path().name], sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()


def _note(c: OclgrindCounts, fill_notes: list[str]) -> str:
    if c.sampled:
        parts = [f"sampled: {c.groups_run} of {c.groups_total} work-groups (the first and the "
                 f"last) counted, scaled by {c.groups_total / c.groups_run:g}"]
        lo, hi = c.group_instructions_min, c.group_instructions_max
        if hi > 0 and hi - lo > 0.05 * hi:
            parts.append(f"the two groups' work differs ({lo} vs {hi} instructions): control "
                         "flow depends on the group or the data, the scaled counts are "
                         "approximate")
    else:
        parts = [f"exact: all {c.groups_total} work-groups counted"]
    parts += fill_notes
    if c.errors:
        parts.append(f"{len(c.errors)} Oclgrind memory errors (e.g. {c.errors[0][:80]})")
    return "; ".join(parts)


def counting_local(launch: RecordedLaunch, items: int = GROUP_FREE_ITEMS
                   ) -> tuple[tuple[int, ...], str]:
    """The work-group size to count *launch* with: its own, or, for a kernel whose text
    never refers to work-groups (no barrier, local memory, local or group ids), a group of
    at most *items* work-items along the first dimension (each work-item's work is then the
    same however they are grouped, and two small groups cost less to run than two large
    ones)."""
    local = launch.local()
    per_group = math.prod(local)
    if per_group <= items or not group_free(launch):
        return local, ""
    g0 = launch.global_dims[0]
    d = max(x for x in range(1, items + 1) if g0 % x == 0)
    small = (d,) + (1,) * (len(launch.global_dims) - 1)
    return small, (f"counted in work-groups of {math.prod(small)} (the kernel does not refer "
                   f"to its work-group of {per_group})")


def group_free(launch: RecordedLaunch) -> bool:
    """Whether *launch*'s kernel text never refers to work-groups and it has no local
    memory argument."""
    return not (_GROUP_WORDS.search(_code(launch.src))
                or any(a.get("kind") == "local" for a in launch.args))


def _code(src: str) -> str:
    """*src* without comments."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.S)


def count_launch(launch: RecordedLaunch, *, sample_above: int | None = SAMPLE_ABOVE_GROUPS,
                 timeout: float = COUNT_TIMEOUT, cache: bool = True) -> LaunchCounts:
    """Count *launch* under Oclgrind at its recorded arguments (see the module doc)."""
    key = _key(launch, sample_above)
    f = _cache_dir() / f"{key}.json"
    if cache:
        d = _cached(f)
        if "failed" in d and float(d.get("timeout", 0)) >= timeout:
            raise getattr(errors, str(d.get("type")), ExecutionError)(d["failed"])
        if "record" in d:
            c = OclgrindCounts.from_record(d["record"], d.get("errors", []))
            return LaunchCounts(c, d["note"], float(d["seconds"]), cached=True)
    try:
        return _count_launch(launch, sample_above, timeout, f if cache else None)
    except (CompileError, ExecutionError) as e:
        # a kernel that does not build or finish fails again with the same inputs and no
        # more time: said at once (a longer *timeout* tries again)
        if cache:
            write_text_atomic(f, json.dumps({"failed": str(e), "type": type(e).__name__,
                                             "timeout": timeout}))
        raise


def _cached(f: Path) -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError, TypeError):
        d = json.loads(f.read_text())
        return d if isinstance(d, dict) else {}
    return {}


def _count_launch(launch: RecordedLaunch, sample_above: int | None, timeout: float,
                  f: Path | None) -> LaunchCounts:
    args, fill_notes = oclgrind_args(launch)
    t0 = time.perf_counter()
    if sample_above is None:  # every group runs: their size changes nothing then
        c, regroup = _count(launch, args, launch.local(), "", None, timeout)
    elif group_free(launch) and math.prod(launch.local()) > 1:
        # groups of 32 work-items first; a kernel whose work-items each loop for long is
        # counted on two single work-items (the first and the last) instead
        try:
            c, regroup = _count(launch, args, *counting_local(launch), sample_above,
                                min(timeout, FIRST_TRY))
        except ExecutionError as e:
            if "did not finish" not in str(e):
                raise
            c, regroup = _count(launch, args, *counting_local(launch, 1), sample_above,
                                max(1.0, timeout - (time.perf_counter() - t0)))
    else:
        c, regroup = _count(launch, args, launch.local(), "", sample_above, timeout)
    seconds = time.perf_counter() - t0
    note = _note(c, ([regroup] if regroup else []) + fill_notes)
    if regroup:
        real = launch.local()
        c.local_size = (real + (1, 1, 1))[:3]  # type: ignore[assignment]
    if f is not None:
        write_text_atomic(f, json.dumps({"record": _record(c), "errors": c.errors[:20],
                                         "note": note, "seconds": seconds}))
    return LaunchCounts(c, note, seconds)


def _count(launch: RecordedLaunch, args: list[Any], local: tuple[int, ...], regroup: str,
           sample_above: int | None, timeout: float) -> tuple[OclgrindCounts, str]:
    c = count_kernel(launch.src, launch.kernel, launch.global_dims, local, args,
                     build_options=launch.build_options, timeout=timeout,
                     sample_above=sample_above)
    return c, regroup


def _record(c: OclgrindCounts) -> dict[str, Any]:
    """*c* in the plugin's record form (what :meth:`OclgrindCounts.from_record` reads)."""
    d = c.to_dict()
    d["global"], d["local"] = list(c.global_size), list(c.local_size)
    d["global_sectors_load"], d["global_sectors_store"] = c.sectors_read, c.sectors_written
    d["groups"], d["groups_total"] = c.groups_run, c.groups_total
    return d
