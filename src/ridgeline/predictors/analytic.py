"""Analytic baseline: counts from the evaluated source, time from the roofline bound."""

from __future__ import annotations

import math
from dataclasses import replace

from ridgeline.analysis.kernel import KernelAnalysis, analyze_launch
from ridgeline.errors import LaunchError
from ridgeline.hardware import GPU
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors.base import PREDICTORS, Prediction, Predictor

__all__ = ["AnalyticPredictor", "require_sizes"]


def require_sizes(a: KernelAnalysis) -> None:
    """Refuse to present a number when the launch size is unknown."""
    if a.language == "omp":
        return  # region counts are totals; teams/threads only matter for time
    if a.grid is None or a.block is None or not math.isfinite(a.threads):
        raise LaunchError(
            f"kernel {a.kernel!r}: launch size unknown ({'; '.join(a.notes) or 'no launch site'})"
            "; give --grid and --block (e.g. --grid 1024 --block 256)"
        )


class AnalyticPredictor(Predictor):
    """Loop-weighted per-thread counts times threads; DRAM bytes are the launch's buffer
    footprint where it evaluates, else every access; time is the roofline lower bound
    max(ops/peak, bytes/bandwidth)."""

    name = "analytic"

    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        a = analyze_launch(kernel, launch)
        require_sizes(a)
        notes = list(a.notes)
        if a.stats.unknown_loops:
            notes.append(f"{a.stats.unknown_loops} loop(s) with unknown trip counts "
                         "counted as 16 iterations")
        counts = a.counts()
        # the bytes the data needs, as the GPU's profiler counts them
        counts = replace(counts, dram_bytes=counts.dram_bytes * gpu.dram_bytes_scale)
        return Prediction.from_counts(
            a.kernel, gpu, counts, self.name,
            origin={**a.origin, "counts": "analytic (source text)",
                    "time": "roofline lower bound"},
            notes=notes,
        )


PREDICTORS.add("analytic", AnalyticPredictor)
