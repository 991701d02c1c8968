"""Counted numbers as model columns: :data:`COUNTED_COLUMNS` (log10(1 + x) of a counted
launch's FLOPs, integer ops, accesses, DRAM bytes and thread work) from one launch record."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.launch import Dim3
from ridgeline.learning.matching import first_launch

__all__ = ["COUNTED_COLUMNS", "counted_features", "has_counts", "launch_record_features"]

#: log10(1 + x) of counted quantities; NaN where the row has no counts
COUNTED_COLUMNS = ["c_has", "c_sp", "c_dp", "c_hp", "c_int", "c_arith", "c_logic", "c_cmp",
                   "c_gep", "c_conv", "c_select", "c_load_b", "c_store_b", "c_loads",
                   "c_stores", "c_shared", "c_atomics", "c_dram", "c_ai_sp", "c_ai_dp",
                   "c_ai_int", "c_omp_loop", "c_atom_hot", "c_atom_hot_fp", "c_tw_max",
                   "c_warp_issue"]


def has_counts(frame: pd.DataFrame) -> np.ndarray:
    """Rows of *frame* with CPU-execution counts (``c_has`` 1); none when it has no counted
    columns."""
    if "c_has" not in frame:
        return np.zeros(len(frame), bool)
    return frame["c_has"].to_numpy(float) == 1.0


def _lg(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return math.log10(1.0 + max(v, 0.0)) if math.isfinite(v) else float("nan")


def launch_record_features(rec: dict[str, Any], gpu: str | None) -> dict[str, float]:
    """Feature columns of one counted launch record (LaunchCount.to_dict()) for *gpu*."""
    det = rec.get("int_detail") or {}
    by_gpu = rec.get("dram_bytes_by_gpu") or {}
    dram = by_gpu.get(gpu) if gpu else None
    if dram is None:
        dram = rec.get("dram_bytes")
    f = {
        "c_has": 1.0, "c_sp": _lg(rec.get("flops_sp")), "c_dp": _lg(rec.get("flops_dp")),
        "c_hp": _lg(rec.get("flops_hp")), "c_int": _lg(rec.get("int_ops")),
        "c_arith": _lg(det.get("int_arith", 0)), "c_logic": _lg(det.get("int_logic", 0)),
        "c_cmp": _lg(det.get("int_cmp", 0)), "c_gep": _lg(det.get("int_gep", 0)),
        "c_conv": _lg(det.get("int_conv", 0)), "c_select": _lg(det.get("select", 0)),
        "c_load_b": _lg(rec.get("global_load_bytes")),
        "c_store_b": _lg(rec.get("global_store_bytes")),
        "c_loads": _lg(rec.get("global_loads")), "c_stores": _lg(rec.get("global_stores")),
        "c_shared": _lg(rec.get("shared_accesses")), "c_atomics": _lg(rec.get("atomics")),
        "c_dram": _lg(dram),
        # OpenMP: 1 when the region ran a worksharing loop, 0 when not, NaN unknown / CUDA
        "c_omp_loop": float("nan") if rec.get("omp_worksharing") is None
        else float(bool(rec["omp_worksharing"])),
        # CUDA: the longest thread's operations and the warps' issue factor (log10); NaN
        # where the run did not follow threads one by one
        "c_tw_max": _lg(rec.get("thread_work_max")),
        "c_warp_issue": math.log10(rec["warp_issue_factor"])
        if (rec.get("warp_issue_factor") or 0) > 0 else float("nan"),
    }
    # the most global integer / float atomics on one address; none without atomics, unknown
    # (NaN) where a record with atomics predates the count
    for col, key in (("c_atom_hot", "atomics_hot"), ("c_atom_hot_fp", "atomics_hot_fp")):
        hot = rec.get(key)
        f[col] = _lg(hot) if hot is not None else (
            0.0 if not rec.get("atomics") else float("nan"))
    for p, col in (("sp", "c_ai_sp"), ("dp", "c_ai_dp"), ("int", "c_ai_int")):
        f[col] = f[{"sp": "c_sp", "dp": "c_dp", "int": "c_int"}[p]] - f["c_dram"]
    return f


def counted_features(launches: list[dict[str, Any]] | None, gpu: str,
                     grid: Dim3 | None = None, block: Dim3 | None = None) -> dict[str, float]:
    """Feature columns for a predict call: the counts of the first launch with *grid* and
    *block* (else the first launch), or NaN columns."""
    rec = first_launch(launches or [], grid, block)
    if rec is None:
        return {c: float("nan") for c in COUNTED_COLUMNS}
    return launch_record_features(rec, gpu)
