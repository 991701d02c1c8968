"""Roofline math: counts, intensities, ridge points, attainable performance, time bounds."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ridgeline.hardware.catalog import GPU, PRECISIONS

__all__ = ["Counts", "ridge_point", "attainable", "time_lower_bound", "intensities"]


@dataclass(frozen=True)
class Counts:
    """What a kernel launch does: FLOPs by precision (FMA = 2), integer ops, DRAM bytes."""

    flops_sp: float = 0.0
    flops_dp: float = 0.0
    flops_hp: float = 0.0
    int_ops: float = 0.0
    dram_bytes: float = 0.0

    def ops(self, precision: str) -> float:
        return {
            "sp": self.flops_sp,
            "dp": self.flops_dp,
            "hp": self.flops_hp,
            "int": self.int_ops,
        }[precision]

    @property
    def total_flops(self) -> float:
        return self.flops_sp + self.flops_dp + self.flops_hp

    def is_finite(self) -> bool:
        return all(
            math.isfinite(v) and v >= 0
            for v in (self.flops_sp, self.flops_dp, self.flops_hp, self.int_ops, self.dram_bytes)
        )


def _ratio(ops: float, nbytes: float) -> float:
    """ops / bytes without dividing by zero: 0 ops -> 0, positive ops over 0 bytes -> inf."""
    if ops <= 0:
        return 0.0
    if nbytes <= 0:
        return math.inf
    return ops / nbytes


def intensities(c: Counts) -> dict[str, float]:
    """Operations per DRAM byte for each precision."""
    return {p: _ratio(c.ops(p), c.dram_bytes) for p in PRECISIONS}


def ridge_point(
    gpu: GPU, precision: str, clock: str = "boost", int_lanes: str = "int32"
) -> float:
    """Intensity (ops per DRAM byte) where the roofline turns from bandwidth to compute."""
    return gpu.peak(precision, clock, int_lanes) / gpu.bandwidth


def attainable(gpu: GPU, precision: str, intensity: float, clock: str = "boost") -> float:
    """Attainable performance (ops/s) at an intensity: min(peak, intensity * bandwidth)."""
    return min(gpu.peak(precision, clock), intensity * gpu.bandwidth)


def time_lower_bound(c: Counts, gpu: GPU, clock: str = "boost") -> float:
    """Roofline lower bound on run time in seconds: max(ops/peak over precisions, bytes/bw).

    Each precision and the memory system are taken as separate resources; the bound is
    the slowest one (a kernel cannot finish before any of them could).
    """
    t_mem = c.dram_bytes / gpu.bandwidth
    t_ops = max(c.ops(p) / gpu.peak(p, clock) for p in PRECISIONS)
    return max(t_mem, t_ops)
