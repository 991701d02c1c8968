"""``predict-batch`` rows anchored on a measured GPU: the optional ``measured_gpu`` and
``measured_ns`` columns (a cataloged GPU and the kernel's time measured there; ns, or with a
unit: ``1.2ms``). A row that gives both has its ``pred_xtime_ns`` (and range) replaced by the
measured time x the model's predicted time on the row's device / on the measured GPU (see
:mod:`ridgeline.predictors.anchored`); ``pred_anchor`` says so, or why it could not be."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.errors import RidgelineError, UsageError
from ridgeline.predictors.anchored import anchored_time, parse_measured

__all__ = ["ANCHOR_COLUMNS", "anchor_columns", "anchor_rows"]

#: the optional input columns
ANCHOR_COLUMNS = ("measured_gpu", "measured_ns")


def anchor_columns(columns: list[str]) -> list[str]:
    """The output column the anchor adds (``pred_anchor``) when the input has either one."""
    return ["pred_anchor"] if set(ANCHOR_COLUMNS) & set(columns) else []


def _text(row: Any, col: str) -> str:
    v = row.get(col, "")
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v).strip()


def _parse(row: Any, catalog: Any) -> Any:
    g, t = _text(row, "measured_gpu"), _text(row, "measured_ns")
    if not g and not t:
        return None
    if not g or not t:
        raise UsageError(f"measured_gpu {g!r} and measured_ns {t!r}: give both (a cataloged "
                         "GPU and the time measured there) or neither")
    return parse_measured(f"{g}={t}", catalog, where="measured_gpu/measured_ns")


def anchor_rows(out: pd.DataFrame, df: pd.DataFrame, catalog: Any,
                predict: Callable[[pd.DataFrame], pd.DataFrame],
                where: Callable[[int], str]) -> pd.DataFrame:
    """*out* (the predicted rows of *df*) with the rows that give a measured GPU anchored;
    *predict* predicts rows of *df*'s form (used for the measured GPUs); *where(i)* names
    row *i*'s line for error texts."""
    out = out.copy()
    out["pred_anchor"] = ""
    anchors: dict[int, Any] = {}
    for i, row in enumerate(df.to_dict("records")):
        try:
            a = _parse(row, catalog)
        except RidgelineError as e:
            msg = f"{type(e).__name__}: {e}{where(i)}"
            out.loc[i, "error"] = "; ".join(x for x in (str(out.loc[i, "error"] or ""), msg) if x)
            _blank(out, i)
            out.loc[i, "pred_anchor"] = "not anchored: bad measured_gpu/measured_ns"
            continue
        if a is not None and not str(out.loc[i, "error"] or ""):
            anchors[i] = a
    if not anchors:
        return out
    idx = sorted(anchors)
    extra = df.iloc[idx].drop(columns=[c for c in ANCHOR_COLUMNS if c in df]).copy()
    extra["device"] = [anchors[i].gpu.name for i in idx]
    on = predict(extra.reset_index(drop=True))
    for k, i in enumerate(idx):
        a, denom = anchors[i], float(on["pred_xtime_ns"].iloc[k])
        target = float(out["pred_xtime_ns"].iloc[i])
        same = catalog.get(str(df["device"].iloc[i])).name == a.gpu.name
        if not (denom > 0 and target > 0):
            why = str(on["error"].iloc[k] or "no predicted time")
            out.loc[i, "pred_anchor"] = f"not anchored: on {a.gpu.name}: {why}"
            _blank(out, i)
            continue
        t, (lo, hi) = anchored_time(a, target, denom, same_gpu=same)
        out.loc[i, "pred_xtime_ns"] = t
        if "pred_xtime_lo_ns" in out:
            out.loc[i, "pred_xtime_lo_ns"], out.loc[i, "pred_xtime_hi_ns"] = lo, hi
        out.loc[i, "pred_anchor"] = (f"measured on {a.gpu.name}" if same else
                                     f"anchored on {a.gpu.name} = {a.measured_ns:.6g} ns "
                                     f"(predicted there {denom:.6g} ns)")
    return out


def _blank(out: pd.DataFrame, i: int) -> None:
    """No time on a row that asked to be anchored and could not be (the model's own time
    would read as the anchored one)."""
    for c in ("pred_xtime_ns", "pred_xtime_lo_ns", "pred_xtime_hi_ns"):
        if c in out:
            out.loc[i, c] = np.nan
