"""The ``predict-batch`` contract: every input row out, in order, with predictions or an error.

Added columns (stable): pred_SP_FLOP, pred_DP_FLOP, pred_HP_FLOP, pred_int_ops,
pred_bytes_total, pred_xtime_ns, pred_class_paper_a, pred_class_fp, error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets import read_csv, require_columns
from ridgeline.errors import RidgelineError, UnknownNameError
from ridgeline.hardware import Counts, get_rule, load_catalog, time_lower_bound
from ridgeline.predictors.batch import analyze_rows
from ridgeline.predictors.learned import features_frame, shipped_model

__all__ = ["predict_batch", "PRED_COLUMNS", "REQUIRED"]

REQUIRED = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device"]
PRED_COLUMNS = ["pred_SP_FLOP", "pred_DP_FLOP", "pred_HP_FLOP", "pred_int_ops",
                "pred_bytes_total", "pred_xtime_ns", "pred_class_paper_a", "pred_class_fp",
                "error"]


def _from_log(x: pd.Series) -> np.ndarray:
    return np.clip(10.0 ** x.to_numpy(float) - 1.0, 0, None)


def predict_batch(rows_csv: Path, sources: Path, predictor: str = "learned",
                  jobs: int | None = None, gpu_file: str | None = None,
                  progress: bool = True) -> pd.DataFrame:
    if predictor not in ("learned", "analytic"):
        raise UnknownNameError("batch predictor", predictor, ["learned", "analytic"])
    df = read_csv(rows_csv, dtype=str, keep_default_na=False)
    require_columns(df, REQUIRED, str(rows_csv))
    cat = load_catalog(gpu_file)
    gpus: list[Any] = []
    gpu_err: list[str] = []
    for d in df["device"]:
        try:
            gpus.append(cat.get(str(d)))
            gpu_err.append("")
        except UnknownNameError as e:
            gpus.append(None)
            gpu_err.append(f"UnknownNameError: {e}")
    feats = analyze_rows(df, sources, jobs=jobs, progress=progress)
    err = [g or f for g, f in zip(gpu_err, feats["error"].fillna(""), strict=True)]
    out = df.copy()
    for c in PRED_COLUMNS:
        out[c] = "" if c.startswith("pred_class") or c == "error" else np.nan
    ok = np.array([e == "" for e in err])
    if ok.any():
        idx = np.flatnonzero(ok)
        sub = feats.iloc[idx].reset_index(drop=True)
        sub_gpus = [gpus[i] for i in idx]
        if predictor == "learned":
            try:
                y = shipped_model().predict(features_frame(sub, sub_gpus))
                counts = y[["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]]
                times = y["time_ns"].to_numpy(float)
            except RidgelineError as e:
                err = [e_ or f"{type(e).__name__}: {e}" for e_ in err]
                ok[:] = False
                idx = idx[:0]
        else:
            counts = pd.DataFrame({
                "flops_sp": _from_log(sub["a_sp"]), "flops_dp": _from_log(sub["a_dp"]),
                "flops_hp": _from_log(sub["a_hp"]), "int_ops": _from_log(sub["a_int"]),
                "dram_bytes": _from_log(sub["a_bytes"]),
            })
            times = np.array([np.nan] * len(sub))
        _fill(out, idx, counts, times, sub_gpus)
    out["error"] = err
    return out


def _fill(out: pd.DataFrame, idx: np.ndarray, counts: pd.DataFrame, times: np.ndarray,
          gpus: list[Any]) -> None:
    pa, fp = get_rule("paper-a"), get_rule("fp")
    cls_a, cls_f, t_ns = [], [], []
    for k, (row, gpu, t) in enumerate(zip(counts.itertuples(index=False), gpus, times,
                                          strict=True)):
        cnt = Counts(*(float(v) for v in row))
        cls_a.append(pa.classify(cnt, gpu).value or "")
        cls_f.append(fp.classify(cnt, gpu).value or "")
        t_ns.append(t if np.isfinite(t) else time_lower_bound(cnt, gpu) * 1e9)
        del k
    cols = {"pred_SP_FLOP": counts["flops_sp"], "pred_DP_FLOP": counts["flops_dp"],
            "pred_HP_FLOP": counts["flops_hp"], "pred_int_ops": counts["int_ops"],
            "pred_bytes_total": counts["dram_bytes"]}
    for c, v in cols.items():
        out.loc[out.index[idx], c] = np.asarray(v, float)
    out.loc[out.index[idx], "pred_xtime_ns"] = np.asarray(t_ns, float)
    out.loc[out.index[idx], "pred_class_paper_a"] = cls_a
    out.loc[out.index[idx], "pred_class_fp"] = cls_f
