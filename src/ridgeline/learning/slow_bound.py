"""The slowest physically plausible time of a launch for its counts, and what in a launch can
make it slower still.

A kernel that does nothing unusual streams its DRAM bytes and runs its operations at no less
than a small share (:data:`SLOW_SHARE`) of what the GPU achieves, one resource after another,
plus a launch overhead: the sum of bytes over that share of the achievable DRAM bandwidth and,
per precision, operations over that share of its peak (:data:`RATE_COLUMNS`). A
prediction far above it needs a reason that throughput does not see (:func:`slow_reasons`):
atomics that the L2 serialises on one address, a thread that runs a long serial loop, a grid
too small to hide latency. The learned predictor brings a time above the bound down to it
when none applies (:func:`within_slow_bound`) and says so in its notes (:func:`time_notes`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ridgeline.hardware import GPU

__all__ = ["SLOW_SHARE", "LAUNCH_OVERHEAD_NS", "REASON_SHARE", "REASONS", "RATE_COLUMNS",
           "rate_frame", "slow_bound_ns", "slowest_plausible_ns", "slow_reasons",
           "within_slow_bound", "time_notes"]

#: share of the achievable bandwidth and peaks a launch is taken to reach at the least
SLOW_SHARE = 0.05
#: a launch's fixed cost (ns): launch, the first wave's ramp-up and the drain of the last
LAUNCH_OVERHEAD_NS = 10_000.0
#: a reason holds when the time it stands for reaches this share of the slow bound
REASON_SHARE = 0.5
#: warp schedulers per SM (as ridgeline.learning.columns): a grid of fewer threads than one
#: warp per scheduler is tiny
SCHEDULERS_PER_SM = 4
REASONS = ("atomics on one address", "serial loop", "tiny grid")

#: count column -> the column of a feature frame with its rate (log10 per second): the
#: achievable DRAM bandwidth and each precision's theoretical peak (the bound and its share were
#: chosen with theoretical compute peaks, before the catalog had achievable ones)
RATE_COLUMNS = {"dram_bytes": "g_bw_ach", "flops_sp": "g_sp", "flops_dp": "g_dp",
                "flops_hp": "g_hp", "int_ops": "g_int"}


def rate_frame(gpus: Sequence[GPU]) -> pd.DataFrame:
    """The :data:`RATE_COLUMNS` of each GPU, one row per GPU."""
    return pd.DataFrame({
        "g_bw_ach": [math.log10(g.achievable_bandwidth) for g in gpus],
        **{col: [math.log10(g.peak(p)) for g in gpus]
           for col, p in (("g_sp", "sp"), ("g_dp", "dp"), ("g_hp", "hp"), ("g_int", "int"))},
    })


def slow_bound_ns(counts: pd.DataFrame, rates: pd.DataFrame,
                  share: float = SLOW_SHARE) -> np.ndarray:
    """Per row: :data:`LAUNCH_OVERHEAD_NS` plus each count of *counts* (``flops_sp``,
    ``flops_dp``, ``flops_hp``, ``int_ops``, ``dram_bytes``) over *share* of its rate in
    *rates* (:data:`RATE_COLUMNS`; a frame without ``g_bw_ach`` gives the theoretical
    bandwidth ``g_bw``), summed."""
    if len(counts) != len(rates):
        raise ValueError(f"{len(counts)} rows of counts, {len(rates)} rows of GPU rates")
    t = np.full(len(counts), LAUNCH_OVERHEAD_NS)
    for c, col in RATE_COLUMNS.items():
        if col not in rates and col == "g_bw_ach":
            col = "g_bw"
        v = np.nan_to_num(counts[c].to_numpy(float), nan=0.0)
        t += v / (share * 10.0 ** rates[col].to_numpy(float)) * 1e9
    return t


def slowest_plausible_ns(counts: pd.DataFrame, gpus: Sequence[GPU],
                         share: float = SLOW_SHARE) -> np.ndarray:
    """:func:`slow_bound_ns` of *counts* on *gpus* (one per row)."""
    if len(counts) != len(gpus):
        raise ValueError(f"{len(counts)} rows of counts, {len(gpus)} GPUs")
    return slow_bound_ns(counts, rate_frame(gpus), share)


def _log_ns(X: pd.DataFrame, col: str) -> np.ndarray:
    """A log10-ns column of *X* in ns (NaN where absent)."""
    v = X[col].to_numpy(float) if col in X else np.full(len(X), np.nan)
    return 10.0 ** v


def slow_reasons(X: pd.DataFrame, bound_ns: np.ndarray) -> list[list[str]]:
    """Per row of the feature frame *X* (:func:`ridgeline.learning.columns.features_frame`
    output), the named reasons it may run slower than *bound_ns*: its counted atomics on one
    address take, one after another, :data:`REASON_SHARE` of the bound or more (``atom_t_ns``,
    the L2's serial rate); its longest thread's operations one after another do
    (``lat_t_thread``, CUDA counts that followed threads), or its threads' average work does,
    issued with too few warps to hide the issue latency (``lat_t_issue``: a serial loop in
    every thread); or it launches fewer threads than one warp per scheduler of the GPU."""
    with np.errstate(invalid="ignore", over="ignore"):
        atom_ns = _log_ns(X, "atom_t_ns")
        thread_ns = np.fmax(_log_ns(X, "lat_t_thread"), _log_ns(X, "lat_t_issue"))
        launched = X["a_launched"].to_numpy(float) if "a_launched" in X else np.full(
            len(X), np.nan)
        threads = np.clip(10.0 ** launched - 1.0, 0.0, None)
    sms = X["g_sms"].to_numpy(float)
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


def within_slow_bound(X: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """*df* (predicted counts and ``time_ns`` for the rows of the feature frame *X*) with
    every time above the slow bound of its own counts brought down to it, unless one of
    :func:`slow_reasons` applies; ``time_capped`` (1.0 / 0.0) says which were."""
    bound = slow_bound_ns(df, X)
    t = df["time_ns"].to_numpy(float)
    over = t > bound
    reasons = slow_reasons(X, bound) if over.any() else [[] for _ in range(len(X))]
    cap = over & np.array([not r for r in reasons], bool)
    return df.assign(time_ns=np.where(cap, bound, t), time_capped=cap.astype(float))


def time_notes(X: pd.DataFrame, df: pd.DataFrame) -> list[str]:
    """Per row of :func:`within_slow_bound`'s output *df*: what the slow bound did ("" when
    the time lies under it)."""
    bound = slow_bound_ns(df, X)
    t = df["time_ns"].to_numpy(float)
    capped = df["time_capped"].to_numpy(float) == 1.0 if "time_capped" in df else t < 0
    reasons = slow_reasons(X, bound)
    how = (f"DRAM bytes at {SLOW_SHARE:.0%} of the achievable bandwidth and operations at "
           f"{SLOW_SHARE:.0%} of the peaks, plus {LAUNCH_OVERHEAD_NS / 1e3:g} us")
    out = []
    for b, ti, c, r in zip(bound, t, capped, reasons, strict=True):
        if c:
            out.append(f"time capped at {b / 1e3:.4g} us, the slowest plausible time of its "
                       f"counts ({how}): no atomics on one address, serial loop or tiny grid "
                       "explains more")
        elif ti > b:
            out.append(f"time above the slowest plausible time of its counts ({b / 1e3:.4g} "
                       f"us: {how}): {', '.join(r)}")
        else:
            out.append("")
    return out
