"""The slowest physically plausible time of a launch for its counts, and what in a launch can
make it slower still.

A kernel that does nothing unusual streams its DRAM bytes and runs its operations at no less
than a small share (:data:`SLOW_SHARE`) of what the GPU achieves, one resource after another,
plus a launch overhead: the sum of bytes over that share of the achievable DRAM bandwidth and,
per precision, operations over that share of the achievable (else theoretical) peak. A
prediction far above it needs a reason that throughput does not see (:func:`slow_reasons`):
atomics that the L2 serialises on one address, a thread that runs a long serial loop, a grid
too small to hide latency.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ridgeline.hardware import GPU

__all__ = ["SLOW_SHARE", "LAUNCH_OVERHEAD_NS", "REASON_SHARE", "slowest_plausible_ns",
           "slow_reasons", "REASONS"]

#: share of the achievable bandwidth and peaks a launch is taken to reach at the least
SLOW_SHARE = 0.05
#: a launch's fixed cost (ns): launch, the first wave's ramp-up and the drain of the last
LAUNCH_OVERHEAD_NS = 10_000.0
#: a reason holds when the time it stands for reaches this share of the slow bound
REASON_SHARE = 0.5
REASONS = ("atomics on one address", "serial loop", "tiny grid")

#: count column -> (achievable kind or None, catalog precision)
_RATES = {"dram_bytes": ("dram_bandwidth", None), "flops_sp": ("fp32", "sp"),
          "flops_dp": ("fp64", "dp"), "flops_hp": (None, "hp"), "int_ops": ("int32", "int")}


def _rate(gpu: GPU, kind: str | None, precision: str | None) -> float:
    """Achievable figure per second (theoretical where the catalog has none)."""
    if kind == "dram_bandwidth":
        return gpu.achievable_bandwidth
    if kind is not None:
        v = gpu.achievable(kind).value
        if v:
            return v * 1e12
    assert precision is not None
    return gpu.peak(precision)


def slowest_plausible_ns(counts: pd.DataFrame, gpus: Sequence[GPU],
                         share: float = SLOW_SHARE) -> np.ndarray:
    """Per row of *counts* (``flops_sp``, ``flops_dp``, ``flops_hp``, ``int_ops``,
    ``dram_bytes``; one GPU per row): :data:`LAUNCH_OVERHEAD_NS` plus each quantity over
    *share* of its achievable rate, summed."""
    if len(counts) != len(gpus):
        raise ValueError(f"{len(counts)} rows of counts, {len(gpus)} GPUs")
    rates = {g.name: {c: _rate(g, k, p) for c, (k, p) in _RATES.items()} for g in gpus}
    t = np.full(len(counts), LAUNCH_OVERHEAD_NS)
    for c in _RATES:
        v = np.nan_to_num(counts[c].to_numpy(float), nan=0.0)
        r = np.array([rates[g.name][c] for g in gpus])
        t += v / (share * r) * 1e9
    return t


def _lin(X: pd.DataFrame, col: str) -> np.ndarray:
    v = X[col].to_numpy(float) if col in X else np.full(len(X), np.nan)
    return np.clip(10.0 ** v - 1.0, 0.0, None)


def slow_reasons(X: pd.DataFrame, bound_ns: np.ndarray) -> list[list[str]]:
    """Per row of the feature frame *X* (:func:`ridgeline.predictors.learned.features_frame`
    output), the named reasons it may run slower than *bound_ns*: its counted atomics on one
    address take, one after another, :data:`REASON_SHARE` of the bound or more (the L2's
    serial rate of :mod:`ridgeline.predictors.learned`); its longest thread's operations one
    after another do (CUDA counts that followed threads), or its threads' average work does,
    issued with too few warps to hide the issue latency (``lat_t_issue``: a serial loop in
    every thread); or it launches fewer threads than one warp per scheduler of the GPU."""
    from ridgeline.predictors.learned import (
        ATOMIC_FP_CYCLES,
        ATOMIC_INT_WARP_CYCLES,
        SCHEDULERS_PER_SM,
        THREAD_OP_CYCLES,
    )

    clock_ghz = X["g_clock"].to_numpy(float)
    sms = X["g_sms"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        atom_ns = np.fmax(_lin(X, "c_atom_hot") / 32.0 * ATOMIC_INT_WARP_CYCLES,
                          _lin(X, "c_atom_hot_fp") * ATOMIC_FP_CYCLES) / clock_ghz
        thread_ns = np.fmax(_lin(X, "c_tw_max") * THREAD_OP_CYCLES / clock_ghz,
                            _lin(X, "lat_t_issue"))
        threads = _lin(X, "a_launched")
    limit = REASON_SHARE * np.asarray(bound_ns, float)
    tiny = threads < sms * SCHEDULERS_PER_SM * 32.0
    out: list[list[str]] = []
    for a, s, t, lim in zip(atom_ns, thread_ns, tiny, limit, strict=True):
        r = []
        if np.isfinite(a) and a >= lim:
            r.append(REASONS[0])
        if np.isfinite(s) and s >= lim:
            r.append(REASONS[1])
        if t:
            r.append(REASONS[2])
        out.append(r)
    return out
