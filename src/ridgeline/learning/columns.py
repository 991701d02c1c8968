"""The learned model's feature frame: launch-feature rows (analysed, counted) joined with the
GPU's catalog numbers, and the bounds derived from them (roofline, latency, atomics) that the
trees read as columns. Targets are log10(1 + count) of SP/DP/HP FLOPs, integer ops, DRAM
bytes and log10 time (ns)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from ridgeline.hardware import GPU
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, has_counts
from ridgeline.learning.featvec import GPU_COLUMNS, LAUNCH_COLUMNS, gpu_features

__all__ = ["FEATURES", "SLOW_COLUMNS", "TARGETS", "TIME_ONLY_COLUMNS", "features_frame",
           "roofline_log_ns", "with_uncounted_copies"]

TARGETS = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes", "time_ns"]
#: counted quantities against the GPU's peaks (log10 seconds at peak), NaN without counts
COUNTED_GPU_COLUMNS = ["gc_t_mem", "gc_t_sp", "gc_t_dp", "gc_t_int", "gc_bytes_over_l2"]
#: log10 ns of the roofline time bound from the best counts a row has (counted, else
#: analysed): max of DRAM bytes / bandwidth and each precision's operations / peak, and for
#: counted rows the time their most-updated atomic address takes (``_atomic_log_ns``)
BOUND_COLUMNS = ["roof_t_ns"]
#: counted rows against the GPU's latency (see :func:`_latency_bound`): operations and memory
#: accesses per thread, waves of resident threads, active warps per scheduler, the issue-
#: and memory-latency-bound times (log10 ns) and the time bound (roofline or latency,
#: whichever is longer; the roofline bound where a row has no counts)
LATENCY_COLUMNS = ["lat_ipt", "lat_mpt", "lat_waves", "lat_active", "lat_t_issue",
                   "lat_t_mem", "lat_t_ns", "time_bound_ns", "lat_t_issue_div", "lat_t_thread",
                   "lat_thread_over_roof"]
#: counted rows: how far each latency bound and each count's time at peak lies above the
#: roofline bound (log10), the time model's offset there. The trees learn log time over that
#: offset, and a bound they see only as an absolute time they use through the difference of two
#: columns, which piecewise-constant trees approximate poorly. Program-grouped 5-fold CV of
#: time, 3391 rows: median APE / within 2x / MAPE 33.1% / 74.0% / 82% -> 30.9% / 75.6% / 75%
#: (fold seed 4839) and 35.1% / 73.1% / 94% -> 31.1% / 74.9% / 85% (seed 7)
OVER_ROOF_COLUMNS = ["lat_t_issue_over_roof", "lat_t_mem_over_roof", "lat_t_ns_over_roof",
                     "lat_t_issue_div_over_roof", "time_bound_ns_over_roof",
                     "gc_t_mem_over_roof", "gc_t_sp_over_roof", "gc_t_dp_over_roof",
                     "gc_t_int_over_roof"]
#: columns only the time model sees: those of CUDA runs that followed threads one by one (the
#: longest thread and the warps' issue factor, the issue bound with that factor, the longest
#: thread's time and how far it lies above the roofline bound, log10) and OVER_ROOF_COLUMNS.
#: The count models are fitted without them, so the counts and the class are those of the
#: model without them
TIME_ONLY_COLUMNS = ["c_tw_max", "c_warp_issue", "lat_t_issue_div", "lat_t_thread",
                     "lat_thread_over_roof"] + OVER_ROOF_COLUMNS
FEATURES = (LAUNCH_COLUMNS + GPU_COLUMNS + COUNTED_COLUMNS + COUNTED_GPU_COLUMNS
            + BOUND_COLUMNS + LATENCY_COLUMNS + OVER_ROOF_COLUMNS)
#: cycles a warp waits between dependent instructions (ALU) and on a global-memory access
#: under load, for the latency bound. Ampere's dependent-issue latency is 4-6 cycles and an
#: L2 miss 400-600 idle; 8 and 800 were the best of {4, 8, 16} x {200, 400, 800} under
#: program-grouped CV (all nine within 3 points of median APE of each other).
ISSUE_LATENCY_CYCLES, MEMORY_LATENCY_CYCLES = 8.0, 800.0
#: cycles per operation of a launch's longest thread (CUDA counts: ``c_tw_max``), for the
#: latency bound: one dependent instruction after another
THREAD_OP_CYCLES = 8.0
#: warp schedulers per SM (NVIDIA since Maxwell; SIMDs per CU on AMD)
SCHEDULERS_PER_SM = 4
#: instructions per FLOP in the latency bound: an FMA is two FLOPs in one instruction
INSTR_PER_FLOP = 1.0 / 1.5


#: columns the slow bound (learning.slow_bound) reads besides the features: the hot
#: address's serial time (log10 ns) and the achievable DRAM bandwidth (log10 bytes/s)
SLOW_COLUMNS = ["atom_t_ns", "g_bw_ach"]


def features_frame(launch_rows: pd.DataFrame, gpus: list[GPU]) -> pd.DataFrame:
    """Add the GPU columns to launch-feature rows (one GPU per row)."""
    recs = [{str(k): float(v) for k, v in r.items() if isinstance(v, int | float)}
            for r in launch_rows.to_dict("records")]
    g = [gpu_features(gpu, row) for gpu, row in zip(gpus, recs, strict=True)]
    # a frame that went through here before gets its derived columns anew
    base = launch_rows.drop(columns=[c for c in SLOW_COLUMNS if c in launch_rows]
                            ).reset_index(drop=True)
    for c in COUNTED_COLUMNS:
        if c not in base:
            base[c] = float("nan")
    _add_omp_runtime_int(base)
    gf = pd.DataFrame(g, columns=GPU_COLUMNS)
    gc = pd.DataFrame({
        "gc_t_mem": base["c_dram"].to_numpy(float) - gf["g_bw"].to_numpy(float),
        "gc_t_sp": base["c_sp"].to_numpy(float) - gf["g_sp"].to_numpy(float),
        "gc_t_dp": base["c_dp"].to_numpy(float) - gf["g_dp"].to_numpy(float),
        "gc_t_int": base["c_int"].to_numpy(float) - gf["g_int"].to_numpy(float),
        "gc_bytes_over_l2": base["c_dram"].to_numpy(float) - gf["g_l2"].to_numpy(float),
    })
    gc["roof_t_ns"] = _time_bound(base, gf)
    gc[SLOW_COLUMNS[0]] = _atomic_log_ns(base, gf)
    gc[SLOW_COLUMNS[1]] = [math.log10(gpu.achievable_bandwidth) for gpu in gpus]
    lat = _latency_bound(base, gf, gpus)
    lat["time_bound_ns"] = np.where(np.isfinite(lat["lat_t_ns"]),
                                    np.fmax(gc["roof_t_ns"], lat["lat_t_ns"]), gc["roof_t_ns"])
    lat["lat_thread_over_roof"] = lat["lat_t_thread"] - gc["roof_t_ns"]
    over = pd.DataFrame({f"{c}_over_roof": (lat[c] if c in lat else gc[c]) - gc["roof_t_ns"]
                         for c in (x[:-len("_over_roof")] for x in OVER_ROOF_COLUMNS)})
    return pd.concat([base, gf, gc, lat, over], axis=1)


def _latency_bound(base: pd.DataFrame, gf: pd.DataFrame, gpus: list[GPU]) -> pd.DataFrame:
    """Counted rows: how long the launch takes when too few warps hide latency.

    Each of an SM's schedulers issues min(1, active warps / latency) instructions per cycle,
    with active warps per scheduler = min(launched warps, resident warps) / (SMs x 4); the
    issue bound divides the warp instructions (integer ops + FLOPs / 1.5) by that rate, the
    memory bound the warp loads and stores with the memory latency. A launch of one block
    whose threads loop a million times is bound here, far above its roofline time (over the
    2746 counted HeCBench rows, log10(measured / bound) has median 0.56 with the roofline
    bound alone, 0.11 with the longer of the two). NaN where a row has no counts or launch
    size."""
    def lin(col: str) -> np.ndarray:
        v = base[col].to_numpy(float) if col in base else np.full(len(base), np.nan)
        return np.clip(10.0 ** v - 1.0, 0.0, None)

    has = has_counts(base)
    threads = lin("a_launched")
    ok = has & np.isfinite(threads) & (threads >= 1)
    flops = np.nan_to_num(lin("c_sp")) + np.nan_to_num(lin("c_dp")) + np.nan_to_num(lin("c_hp"))
    instr = np.nan_to_num(lin("c_int")) + INSTR_PER_FLOP * flops
    mem = np.nan_to_num(lin("c_loads")) + np.nan_to_num(lin("c_stores"))
    sms = gf["g_sms"].to_numpy(float)
    clock_hz = gf["g_clock"].to_numpy(float) * 1e9
    resident = sms * np.array([g.resident_threads_per_sm for g in gpus], float)
    t = np.where(ok, threads, np.nan)
    active = np.minimum(t / 32.0, resident / 32.0) / (sms * SCHEDULERS_PER_SM)

    def bound(work: np.ndarray, latency: float) -> np.ndarray:
        rate = sms * SCHEDULERS_PER_SM * np.minimum(1.0, active / latency) * clock_hz
        return np.log10((work / 32.0) / rate * 1e9 + 1e-3)

    t_issue, t_mem = bound(instr, ISSUE_LATENCY_CYCLES), bound(mem, MEMORY_LATENCY_CYCLES)
    # CUDA runs that followed threads: the warps issue their busiest lane's instructions, and
    # the longest thread runs one operation after another (NaN where threads were not followed)
    issue = lin("c_warp_issue") + 1.0  # the column is log10 of the factor itself
    t_issue_div = bound(instr * issue, ISSUE_LATENCY_CYCLES)
    longest = np.where(ok, lin("c_tw_max"), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_thread = np.log10(longest * THREAD_OP_CYCLES / clock_hz * 1e9 + 1e-3)
        return pd.DataFrame({
            "lat_ipt": np.log10(1.0 + instr / t), "lat_mpt": np.log10(1.0 + mem / t),
            "lat_waves": np.log10(t / resident), "lat_active": np.log10(active),
            "lat_t_issue": t_issue, "lat_t_mem": t_mem,
            "lat_t_ns": np.log10(10.0 ** t_issue + 10.0 ** t_mem),
            "lat_t_issue_div": t_issue_div, "lat_t_thread": t_thread,
        }, index=base.index)


def with_uncounted_copies(X: pd.DataFrame, Y: pd.DataFrame) -> tuple[pd.DataFrame,
                                                                       pd.DataFrame]:
    """The training rows plus, for each counted row, a copy as an uncounted row would look
    (counted and derived columns NaN, the time bound from the analysed counts alone): a
    program the CPU cannot run is predicted from the analysed features, and without the
    copies the trees learn that case from the few hundred rows whose counting failed."""
    has = has_counts(X)
    if not has.any():
        return X, Y
    c = X[has].copy()
    for col in COUNTED_COLUMNS + COUNTED_GPU_COLUMNS + LATENCY_COLUMNS + OVER_ROOF_COLUMNS:
        if col in c:
            c[col] = np.nan
    c["roof_t_ns"] = _time_bound(c, c)
    c["time_bound_ns"] = c["roof_t_ns"]
    return (pd.concat([X, c], ignore_index=True),
            pd.concat([Y, Y[has]], ignore_index=True))


def _add_omp_runtime_int(base: pd.DataFrame) -> None:
    """Counted OpenMP rows: add the integer ops of the GPU's OpenMP runtime per launched
    thread (:func:`ridgeline.counting.omp.omp_device_int_ops`), which the host execution
    does not run."""
    from ridgeline.counting.omp import omp_device_int_ops

    if "is_omp" not in base or "a_launched" not in base:
        return
    rows = ((base["is_omp"].to_numpy(float) == 1.0) & has_counts(base)
            & np.isfinite(base["a_launched"].to_numpy(float)))
    if not rows.any():
        return
    launched = 10.0 ** base.loc[rows, "a_launched"].to_numpy(float) - 1.0
    loop = base.loc[rows, "c_omp_loop"].to_numpy(float)  # features_frame fills it (NaN)
    extra = np.array([omp_device_int_ops(t, None if np.isnan(lp) else bool(lp))
                      for t, lp in zip(launched, loop, strict=True)])
    c_int = np.log10(10.0 ** base.loc[rows, "c_int"].to_numpy(float) + extra)
    base.loc[rows, "c_ai_int"] = base.loc[rows, "c_ai_int"].to_numpy(float) + (
        c_int - base.loc[rows, "c_int"].to_numpy(float))
    base.loc[rows, "c_int"] = c_int


def _time_bound(base: pd.DataFrame, gf: pd.DataFrame) -> np.ndarray:
    """log10 ns of the roofline bound from counted numbers where a row has them, else the
    analysed ones (NaN when neither side has any); for counted rows at least the time their
    most-updated atomic address takes (:func:`_atomic_log_ns`)."""
    def best(counted: str, analysed: str) -> np.ndarray:
        c = base[counted].to_numpy(float)
        a = base[analysed].to_numpy(float) if analysed in base else np.full(len(base), np.nan)
        return np.where(np.isfinite(c), c, a)

    roof = roofline_log_ns(best("c_dram", "a_bytes"), best("c_sp", "a_sp"),
                            best("c_dp", "a_dp"), best("c_int", "a_int"), gf)
    return np.fmax(roof, _atomic_log_ns(base, gf))


#: cycles (at the boost clock) the L2 takes per atomic on one address when they come one
#: after another: a warp's integer atomics on one address as one (hence per 32 of them), float
#: atomics each on its own (see :func:`_atomic_log_ns`). Measured on the counted HeCBench rows:
#: integer, at least 1.4 cycles per warp (atomicPerf's 1.5 M on one counter, 38 us on the RTX
#: 3080; all-pairs-distance on the A100); float, 3.9 cycles per atomic on the RTX 3080 (rfs's
#: sum and atomicPerf's float counter) and 4.0 on the A100 (rfs), though some launches ran
#: faster (atomicPerf-omp, ccsd-trpdrv: 5% of the 93 rows with float atomics on one address
#: under 1 cycle). With the bound, program-grouped 5-fold CV of time over the 3391 rows: within
#: 2x 69.5% -> 70.7%, mean |log10 error| 0.322 -> 0.309, median APE 39.1% -> 39.7%; on the 346
#: rows with atomics within 2x 37.6% -> 50.3% ({1, 2} x {2, 4} cycles within a point of each
#: other)
ATOMIC_INT_WARP_CYCLES, ATOMIC_FP_CYCLES = 1.0, 4.0


def _atomic_log_ns(base: pd.DataFrame, gf: pd.DataFrame) -> np.ndarray:
    """log10 ns the counted global atomics on one address take one after another: the
    integer ones (``c_atom_hot``) 32 at a time at :data:`ATOMIC_INT_WARP_CYCLES`, the float
    ones (``c_atom_hot_fp``) at :data:`ATOMIC_FP_CYCLES` each; NaN without such atomics or
    counts."""
    counted = has_counts(base)

    def hot(col: str) -> np.ndarray:
        v = base[col].to_numpy(float) if col in base else np.full(len(base), np.nan)
        return np.where(counted, np.nan_to_num(10.0 ** v - 1.0, nan=0.0), 0.0)

    cycles = np.fmax(hot("c_atom_hot") / 32.0 * ATOMIC_INT_WARP_CYCLES,
                     hot("c_atom_hot_fp") * ATOMIC_FP_CYCLES)
    clock_hz = gf["g_clock"].to_numpy(float) * 1e9
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log10(cycles / clock_hz * 1e9)
    return np.where(np.isfinite(t) & (cycles >= 1.0), t, np.nan)


#: the GPU columns (log10 per second) each roofline quantity is divided by
_PEAK_COLUMNS = ("g_bw", "g_sp", "g_dp", "g_int")


def roofline_log_ns(dram: np.ndarray, sp: np.ndarray, dp: np.ndarray, int_ops: np.ndarray,
                     gf: pd.DataFrame) -> np.ndarray:
    """log10 ns of the roofline time of log10 DRAM bytes, SP and DP FLOPs and integer ops on
    the GPUs of *gf* (its :data:`_PEAK_COLUMNS`): the longest of each over its peak. NaN where
    every quantity is."""
    parts = np.vstack([v - gf[g].to_numpy(float)
                       for v, g in zip((dram, sp, dp, int_ops), _PEAK_COLUMNS, strict=True)])
    with warnings.catch_warnings():  # all-NaN columns: no counts of any kind
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(parts, axis=0) + 9.0
