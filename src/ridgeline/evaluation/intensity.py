"""The SC26FLOPBench intensity protocol: per precision, a kernel's arithmetic intensity (FLOPs
of that precision per DRAM byte) classed zero / bandwidth-bound / compute-bound on a GPU, and
how close a predicted intensity comes to the measured one.

Rules (the same for measured and predicted counts):

- **zero**: fewer than one FLOP of the precision (:data:`ZERO_FLOPS`). The profiler's counts
  are means of repeated launches, so a kernel with no work of a precision has exactly 0, and
  one with any has at least one.
- **bandwidth-bound**: intensity below the GPU's ridge of the precision (its catalog peak of
  that precision at the boost clock over its theoretical DRAM bandwidth,
  :func:`ridgeline.hardware.ridge_point`); **compute-bound**: at or above it. FLOPs over no
  DRAM bytes are an infinite intensity (compute-bound).
- **within ±x**: a predicted intensity is within ±x of the measured one when both are zero
  (zero-vs-zero counts as a hit: the kernel has no work of that precision and the prediction
  says so), or both are positive and ``|predicted / measured - 1| <= x`` (both infinite: a hit).
  A zero against a positive intensity is a miss at every x. Because zero-vs-zero hits can make
  most of a precision's rows (few kernels do FP64 work), the share is also given over the rows
  whose measured intensity is positive (``within_*_nonzero``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.hardware import get_gpu, ridge_point

__all__ = ["PRECISIONS", "CLASSES", "ZERO_FLOPS", "TOLERANCES", "PUBLISHED_LLM",
           "PUBLISHED_SOURCE", "intensity", "intensity_classes", "class_recall", "within",
           "intensity_figures"]

#: precision name: (count column, catalog precision)
PRECISIONS: dict[str, tuple[str, str]] = {"FP16": ("flops_hp", "hp"),
                                          "FP32": ("flops_sp", "sp"),
                                          "FP64": ("flops_dp", "dp")}
CLASSES = ("zero", "bandwidth", "compute")
ZERO_FLOPS = 1.0
TOLERANCES = (0.10, 0.50)

PUBLISHED_SOURCE = ("SC26FLOPBench, Claude Opus 4.6 given the kernel's SASS: share of kernels "
                    "whose predicted intensity is within ±10% / ±50% of the measured one "
                    "(published figures, not reproduced here)")
#: (catalog GPU name, precision) -> (within ±10%, within ±50%), as published
PUBLISHED_LLM: dict[tuple[str, str], tuple[float, float]] = {
    ("NVIDIA A100 SXM4 40GB", "FP32"): (0.442, 0.808),
    ("NVIDIA H100 SXM5", "FP32"): (0.408, 0.837),
    ("NVIDIA A100 SXM4 40GB", "FP64"): (0.500, 0.929),
}


def intensity(flops: np.ndarray, dram_bytes: np.ndarray) -> np.ndarray:
    """FLOPs per DRAM byte: 0 under :data:`ZERO_FLOPS`, infinite for FLOPs over no bytes."""
    f = np.asarray(flops, float)
    b = np.asarray(dram_bytes, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ai = np.where(b > 0, f / np.where(b > 0, b, 1.0), np.inf)
    return np.where(f < ZERO_FLOPS, 0.0, ai)


def intensity_classes(ai: np.ndarray, ridge: np.ndarray | float) -> np.ndarray:
    """``zero`` / ``bandwidth`` / ``compute`` per intensity against its *ridge*; a NaN
    intensity (counts missing) gives ``""``."""
    a = np.asarray(ai, float)
    r = np.broadcast_to(np.asarray(ridge, float), a.shape)
    out = np.where(a == 0.0, "zero", np.where(a < r, "bandwidth", "compute")).astype(object)
    out[np.isnan(a)] = ""
    return out


def class_recall(truth: Sequence[str] | np.ndarray, pred: Sequence[str] | np.ndarray,
                 classes: Sequence[str] = CLASSES) -> dict[str, Any]:
    """Per class: rows whose measured class it is (``n``) and the share of them predicted so
    (``recall``, NaN without rows); overall accuracy and the confusion (rows: measured)."""
    t, p = np.asarray(truth, object), np.asarray(pred, object)
    if len(t) != len(p):
        raise ValueError(f"truth has {len(t)} rows, prediction {len(p)}")
    out: dict[str, Any] = {"n": int(len(t)),
                           "accuracy": float(np.mean(t == p)) if len(t) else float("nan")}
    for c in classes:
        m = t == c
        out[c] = {"n": int(m.sum()),
                  "recall": float(np.mean(p[m] == c)) if m.any() else float("nan")}
    out["confusion"] = [[int(((t == a) & (p == b)).sum()) for b in classes] for a in classes]
    return out


def within(pred_ai: np.ndarray, meas_ai: np.ndarray, tol: float) -> np.ndarray:
    """Per row, whether the predicted intensity is within ±*tol* of the measured one (see the
    module's rules: zero-vs-zero a hit, zero-vs-positive a miss)."""
    p, m = np.asarray(pred_ai, float), np.asarray(meas_ai, float)
    both_zero = (p == 0.0) & (m == 0.0)
    both_inf = np.isinf(p) & np.isinf(m)
    pos = (p > 0) & (m > 0) & np.isfinite(p) & np.isfinite(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        close = pos & (np.abs(p / np.where(pos, m, 1.0) - 1.0) <= tol + 1e-12)
    return both_zero | both_inf | close


def _one(meas: pd.DataFrame, pred: pd.DataFrame, col: str, prec: str, gpu: str
         ) -> dict[str, Any]:
    ridge = ridge_point(get_gpu(gpu), prec)
    m_ai = intensity(meas[col].to_numpy(float), meas["dram_bytes"].to_numpy(float))
    p_ai = intensity(pred[col].to_numpy(float), pred["dram_bytes"].to_numpy(float))
    ok = ~np.isnan(p_ai) & ~np.isnan(m_ai)
    m_ai, p_ai = m_ai[ok], p_ai[ok]
    out: dict[str, Any] = {"rows": int(ok.sum()), "ridge": float(ridge)}
    out["classes"] = class_recall(intensity_classes(m_ai, ridge),
                                  intensity_classes(p_ai, ridge))
    nz = m_ai > 0
    out["rows_nonzero"] = int(nz.sum())
    for tol in TOLERANCES:
        hit = within(p_ai, m_ai, tol)
        key = f"within_{round(tol * 100)}"
        out[key] = float(hit.mean()) if len(hit) else float("nan")
        out[key + "_nonzero"] = float(hit[nz].mean()) if nz.any() else float("nan")
    return out


def intensity_figures(meas: pd.DataFrame, pred: pd.DataFrame,
                      gpus: Sequence[str] | np.ndarray,
                      precisions: Mapping[str, tuple[str, str]] = PRECISIONS
                      ) -> dict[str, dict[str, Any]]:
    """Per GPU (catalog name) and precision, over the rows of *meas* (measured counts:
    ``flops_*`` and ``dram_bytes``) and *pred* (predicted counts, same rows in the same
    order): class recall and the within-±10% / ±50% shares, beside the published LLM figure
    where there is one."""
    if len(meas) != len(pred):
        raise ValueError(f"{len(meas)} measured rows, {len(pred)} predicted")
    g = np.asarray(gpus, object)
    out: dict[str, dict[str, Any]] = {}
    for gpu in sorted(set(g)):
        sel = g == gpu
        out[gpu] = {}
        for name, (col, prec) in precisions.items():
            r = _one(meas[sel], pred[sel], col, prec, gpu)
            pub = PUBLISHED_LLM.get((gpu, name))
            if pub:
                r["published_llm"] = {"within_10": pub[0], "within_50": pub[1]}
            out[gpu][name] = r
    return out
