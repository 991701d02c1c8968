"""Which measured FP16 counts are the compiler's constant loads, not arithmetic.

On sm_80 and later, nvcc materialises constants in registers with ``HFMA2.MMA`` (a half-
precision FMA on the tensor pipe used as a move), and the profiler counts each as FP16
operations: 699 of the 882 development A100 rows of kernel-performance.csv report FP16 FLOPs,
against 27 of 1,030 on the RTX 3080 (sm_86, whose code moves constants with ``MOV``). The
static SASS mix of the profiled kernel (ncu-metrics-imix.csv.gz, same program, GPU, arguments
and launch sizes, a profiled name, mangled or
demangled, containing the row's kernel) tells the two apart: a kernel
whose only FP16 opcode is ``HFMA2`` does no other half-precision work, and its measured FP16
FLOPs are taken as constant loads. A real half-precision kernel that uses nothing but
``HFMA2`` (an FMA-only ``__half2`` loop) is taken for one too. A row the profiler table does
not match is judged by the same launch (program source, kernel, arguments, launch sizes)
measured on another GPU: a launch's arithmetic does not depend on the GPU, what a compiler adds
for one architecture does, so FP16 FLOPs where another GPU measured none are not arithmetic.
On the development rows the two rules agree on 503 of the 512 A100 rows with FP16 FLOPs that
both judge. Rows neither rule judges stay unidentified.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ridgeline import datasets
from ridgeline.learning.matching import demangle

__all__ = ["FP16_ARITHMETIC", "fp16_constant_only", "fp16_elsewhere_zero", "fp16_not_arithmetic"]

#: half-precision SASS opcodes that are arithmetic in any form (HFMA2 is the ambiguous one)
FP16_ARITHMETIC = ("HADD2", "HMUL2", "HMMA", "HSET2", "HSETP2", "HMNMX2")
_JOIN = ["source", "gpu", "exe_args", "block_size", "grid_size"]
_LAUNCH = ["source", "kernel", "exe_args", "block_size", "grid_size"]


def fp16_constant_only(rows: pd.DataFrame, data_dir: Any = None,
                       ncu: pd.DataFrame | None = None) -> np.ndarray:
    """Per row of *rows* (``source``, ``kernel``, ``gpu``, ``exe_args``, ``block_size``,
    ``grid_size``): 1.0 when the matched profiled kernels' only FP16 opcode is ``HFMA2``,
    0.0 when they have another FP16 opcode or none at all, NaN when no profiled kernel
    matches. *ncu*: the ``ncu-imix`` dataset (loaded from *data_dir* when None)."""
    if ncu is None:
        ncu = datasets.load("ncu-imix", data_dir)
    ncu = ncu.rename(columns={"Block Size": "block_size", "Grid Size": "grid_size"})
    other = ncu.reindex(columns=list(FP16_ARITHMETIC)).astype(float).fillna(0.0).sum(axis=1)
    hfma2 = ncu.reindex(columns=["HFMA2"]).astype(float).fillna(0.0)["HFMA2"]
    names = ncu["Kernel Name"].astype(str)
    readable = {n: f"{n} {demangle(n)}" for n in names.unique()}
    ncu = ncu.assign(_other=other.to_numpy(), _hfma2=hfma2.to_numpy(),
                     _names=names.map(readable).to_numpy())
    groups = {k: g for k, g in ncu.groupby(_JOIN)}
    out = np.full(len(rows), np.nan)
    for i, r in enumerate(rows[_JOIN + ["kernel"]].astype(str).itertuples(index=False)):
        cand = groups.get(tuple(r[:5]))
        if cand is None:
            continue
        hit = cand[cand["_names"].str.contains(r[5], regex=False).to_numpy()]
        if len(hit):
            out[i] = float((hit["_other"] == 0).all() and (hit["_hfma2"] > 0).all())
    return out


def fp16_elsewhere_zero(rows: pd.DataFrame) -> np.ndarray:
    """Per row of *rows* (``flops_hp`` measured): 1.0 when the same launch measured on
    another GPU of *rows* has no FP16 FLOPs, 0.0 when every other GPU measured some, NaN when
    no other GPU measured it."""
    key = rows[_LAUNCH].astype(str).agg("\x1f".join, axis=1).to_numpy()
    hp = rows["flops_hp"].to_numpy(float)
    gpu = rows["gpu"].astype(str).to_numpy()
    seen: dict[str, list[tuple[str, float]]] = {}
    for k, g, v in zip(key, gpu, hp, strict=True):
        seen.setdefault(k, []).append((g, v))
    out = np.full(len(rows), np.nan)
    for i, (k, g) in enumerate(zip(key, gpu, strict=True)):
        others = [v for og, v in seen[k] if og != g]
        if others:
            out[i] = float(min(others) < 1.0)
    return out


def fp16_not_arithmetic(rows: pd.DataFrame, data_dir: Any = None,
                        ncu: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row: whether its measured FP16 FLOPs are not arithmetic (1.0 / 0.0, NaN when
    neither rule judges it), and which rule judged it (``sass``, ``other-gpu`` or "")."""
    sass = fp16_constant_only(rows, data_dir, ncu)
    other = fp16_elsewhere_zero(rows)
    verdict = np.where(np.isfinite(sass), sass, other)
    rule = np.where(np.isfinite(sass), "sass", np.where(np.isfinite(other), "other-gpu", ""))
    return verdict, rule.astype(object)
