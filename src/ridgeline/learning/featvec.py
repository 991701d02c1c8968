"""Numeric feature vectors: a launch's analysed counts plus the GPU's catalog numbers.

GPUs enter as numbers (peaks, bandwidth, SMs, L2), never as names, so a GPU with no training
rows is predicted the same way as one with many.
"""

from __future__ import annotations

import math
from typing import Any

from ridgeline.analysis.kernel import KernelAnalysis, args_numbers
from ridgeline.hardware import GPU

__all__ = ["launch_features", "gpu_features", "LAUNCH_COLUMNS", "GPU_COLUMNS"]


def _lg(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    if not math.isfinite(v):
        return float("nan")
    return math.log10(1.0 + max(v, 0.0))


LAUNCH_COLUMNS = [
    "a_sp", "a_dp", "a_hp", "a_int", "a_load_b", "a_store_b", "a_bytes", "a_threads",
    "a_launched", "t_sp", "t_dp", "t_hp", "t_int", "t_loads", "t_stores", "t_shared",
    "t_atomics", "t_syncs", "t_math_sp", "t_math_dp", "loops", "unknown_loops", "max_depth",
    "static_fp_sp", "static_fp_dp", "static_accesses", "n_bound", "is_omp", "grid_x", "grid_y",
    "grid_z", "block_x", "block_y", "block_z", "n_args", "args_max", "args_sum", "args_prod",
    "a_ai_sp", "a_ai_dp", "a_ai_int", "a_footprint", "a_reuse",
]
GPU_COLUMNS = ["g_sp", "g_dp", "g_hp", "g_int", "g_bw", "g_l2", "g_sms", "g_clock",
               "g_bytes_over_l2", "g_ridge_sp", "g_ridge_dp", "g_ridge_int", "g_t_mem",
               "g_t_sp", "g_t_dp", "g_t_int", "g_fp_over_l2"]


def launch_features(a: KernelAnalysis) -> dict[str, float]:
    s, n = a.stats, a.threads
    c = a.counts()
    nums = args_numbers(a.exe_args)
    grid = a.grid or (float("nan"),) * 3
    block = a.block or (float("nan"),) * 3
    f = {
        "a_sp": _lg(c.flops_sp), "a_dp": _lg(c.flops_dp), "a_hp": _lg(c.flops_hp),
        "a_int": _lg(c.int_ops), "a_load_b": _lg(s.load_bytes * n),
        "a_store_b": _lg(s.store_bytes * n), "a_bytes": _lg(c.dram_bytes), "a_threads": _lg(n),
        "a_launched": _lg(a.launched_threads), "t_sp": _lg(s.flops("sp")),
        "t_dp": _lg(s.flops("dp")), "t_hp": _lg(s.flops("hp")), "t_int": _lg(s.int_ops),
        "t_loads": _lg(s.loads), "t_stores": _lg(s.stores), "t_shared": _lg(s.shared),
        "t_atomics": _lg(s.atomics), "t_syncs": _lg(s.syncs), "t_math_sp": _lg(s.math["sp"]),
        "t_math_dp": _lg(s.math["dp"]), "loops": float(s.loops),
        "unknown_loops": float(s.unknown_loops), "max_depth": float(s.max_depth),
        "static_fp_sp": float(s.static_fp["sp"]), "static_fp_dp": float(s.static_fp["dp"]),
        "static_accesses": float(s.static_accesses), "n_bound": float(len(a.bound)),
        "is_omp": float(a.language == "omp"),
        "grid_x": _lg(grid[0]), "grid_y": _lg(grid[1]), "grid_z": _lg(grid[2]),
        "block_x": _lg(block[0]), "block_y": _lg(block[1]), "block_z": _lg(block[2]),
        "n_args": float(len(nums)), "args_max": _lg(max(nums, default=0.0)),
        "args_sum": _lg(sum(nums)), "args_prod": sum(_lg(x) for x in nums),
    }
    for p, col in (("sp", "a_ai_sp"), ("dp", "a_ai_dp"), ("int", "a_ai_int")):
        f[col] = f[{"sp": "a_sp", "dp": "a_dp", "int": "a_int"}[p]] - f["a_bytes"]
    f["a_footprint"] = _lg(a.footprint)  # NaN when the buffer sizes do not evaluate
    f["a_reuse"] = _lg(a.access_bytes) - f["a_footprint"]  # accesses per footprint byte
    return f


def gpu_features(gpu: GPU, launch: dict[str, float] | None = None) -> dict[str, float]:
    bw = gpu.bandwidth
    g = {
        "g_sp": math.log10(gpu.peak("sp")), "g_dp": math.log10(gpu.peak("dp")),
        "g_hp": math.log10(gpu.peak("hp")), "g_int": math.log10(gpu.peak("int")),
        "g_bw": math.log10(bw), "g_l2": math.log10(gpu.l2_bytes), "g_sms": float(gpu.sm_count),
        "g_clock": gpu.boost_clock_mhz / 1000.0,
        "g_ridge_sp": math.log10(gpu.peak("sp", "base", "fp32") / bw),
        "g_ridge_dp": math.log10(gpu.peak("dp", "base") / bw),
        "g_ridge_int": math.log10(gpu.peak("int", "base", "fp32") / bw),
    }
    lf = launch or {}
    nb = lf.get("a_bytes", float("nan"))
    g["g_bytes_over_l2"] = nb - g["g_l2"]
    g["g_t_mem"] = nb - g["g_bw"]
    g["g_t_sp"] = lf.get("a_sp", float("nan")) - g["g_sp"]
    g["g_t_dp"] = lf.get("a_dp", float("nan")) - g["g_dp"]
    g["g_t_int"] = lf.get("a_int", float("nan")) - g["g_int"]
    g["g_fp_over_l2"] = lf.get("a_footprint", float("nan")) - g["g_l2"]
    return g
