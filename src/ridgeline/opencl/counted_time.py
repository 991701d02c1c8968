"""Kernel time from a launch's counts: roofline and issue bounds at a device's peaks, and a
learned correction on top whose features describe the work (ratios, counts, sizes), never
which kernel it is.

Bounds (seconds): ``fp`` the FLOPs of each precision at its peak, ``int`` the integer
operations at the int32 peak, ``issue`` every executed instruction at the int32 peak (a CPU
device issues them all), ``mem`` the compulsory DRAM bytes (distinct 32-byte sectors) at the
streaming bandwidth, plus the cost of one launch. The bound is the launch cost plus the
largest of them. The correction learns log2(measured / bound).

    b = bounds(counts, peaks)           # dict of the bound times, "bound" the total
    x = features(counts, peaks)         # the correction's inputs
"""

from __future__ import annotations

import math
from typing import Any

from ridgeline.opencl.peaks import DevicePeaks
from ridgeline.profiles.oclgrind import OclgrindCounts

__all__ = ["bounds", "features", "transfer_time", "FEATURES"]


def bounds(c: OclgrindCounts, p: DevicePeaks) -> dict[str, float]:
    """The bound times of counts *c* on the device of peaks *p* (see the module doc)."""
    t = {"fp": c.flops_sp / p.fp32_flops + c.flops_dp / p.fp64_flops
         + c.flops_hp / p.fp32_flops,
         "int": c.int_ops / p.int_ops,
         "issue": c.instructions / p.int_ops,
         "mem": c.dram_bytes / p.dram_bytes_s,
         "launch": p.launch_s}
    t["bound"] = p.launch_s + max(t["fp"], t["int"], t["issue"], t["mem"])
    return t


def _lg(x: float) -> float:
    return math.log2(max(float(x), 0.0) + 1.0)


FEATURES = ("lg_bound", "lg_items", "lg_local", "lg_groups", "fp_share", "int_share",
            "issue_share", "mem_share", "launch_share", "lg_instr_item", "lg_flops_item",
            "dp_fraction", "lg_flop_per_byte", "lg_access_bytes_item", "reuse",
            "lg_local_bytes_item", "lg_barriers_item", "branch_fraction", "special_fraction",
            "sectors_per_request", "sampled", "group_spread", "mem_errors")


def features(c: OclgrindCounts, p: DevicePeaks) -> dict[str, float]:
    """The correction's inputs for counts *c* on peaks *p*: bound shares and work per item,
    all scale-free or logarithmic."""
    b = bounds(c, p)
    items = max(1, math.prod(c.global_size))
    local = max(1, math.prod(c.local_size))
    flops = c.flops_sp + c.flops_dp + c.flops_hp
    access = c.global_load_bytes + c.global_store_bytes
    spread = 0.0
    if c.group_instructions_max:
        spread = (c.group_instructions_max - c.group_instructions_min) / c.group_instructions_max
    instr = max(1, c.instructions)
    return {
        "lg_bound": math.log2(b["bound"] * 1e9),
        "lg_items": math.log2(items), "lg_local": math.log2(local),
        "lg_groups": math.log2(max(1, items // local)),
        **{f"{k}_share": b[k] / b["bound"] for k in ("fp", "int", "issue", "mem", "launch")},
        "lg_instr_item": _lg(c.instructions / items), "lg_flops_item": _lg(flops / items),
        "dp_fraction": c.flops_dp / flops if flops else 0.0,
        "lg_flop_per_byte": _lg(flops / max(1, c.dram_bytes)),
        "lg_access_bytes_item": _lg(access / items),
        "reuse": _lg(access / max(1, c.dram_bytes)),
        "lg_local_bytes_item": _lg((c.local_load_bytes + c.local_store_bytes) / items),
        "lg_barriers_item": _lg(c.barriers / items),
        "branch_fraction": c.branches / instr,
        "special_fraction": (c.special_sp + c.special_dp + c.special_hp) / instr,
        "sectors_per_request": c.sectors_per_request, "sampled": float(c.sampled),
        "group_spread": spread, "mem_errors": float(bool(c.errors)),
    }


def transfer_time(nbytes: float, calls: int, p: DevicePeaks) -> float:
    """Seconds of *calls* host-device transfers moving *nbytes* in all, at the link's
    bandwidth plus a fixed cost per call."""
    return max(0.0, float(nbytes)) / p.link_bytes_s + max(0, calls) * p.link_call_s


def feature_row(c: OclgrindCounts, p: DevicePeaks) -> list[float]:
    f = features(c, p)
    return [f[k] for k in FEATURES]


def as_rows(items: list[Any], p: DevicePeaks) -> list[list[float]]:
    return [feature_row(c, p) for c in items]
