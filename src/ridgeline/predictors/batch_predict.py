"""The ``predict-batch`` contract: every input row out, in order, with predictions or an error.

Added columns (stable): pred_SP_FLOP, pred_DP_FLOP, pred_HP_FLOP, pred_int_ops,
pred_bytes_total, pred_xtime_ns, pred_class_paper_a, pred_class_fp, error; then pred_origin
("counted": FLOPs and DRAM bytes from CPU execution, "learned", "analytic"; empty on errors),
and for the learned predictor pred_confidence (how likely the paper-a class is right) and
pred_xtime_lo_ns / pred_xtime_hi_ns (the range that holds the measured time in
learned.TIME_RANGE of cases).
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets import read_csv, require_columns
from ridgeline.errors import RidgelineError, UnknownNameError
from ridgeline.hardware import Counts, get_rule, load_catalog, time_lower_bound
from ridgeline.predictors.batch import analyze_rows
from ridgeline.predictors.counted import (
    COUNTED_COLUMNS,
    attach_counted,
    has_counts,
    launch_record_features,
)
from ridgeline.predictors.learned import class_confidence, features_frame, shipped_model

__all__ = ["predict_batch", "PRED_COLUMNS", "REQUIRED", "COUNT_MODES"]

log = logging.getLogger(__name__)

REQUIRED = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device"]
PRED_COLUMNS = ["pred_SP_FLOP", "pred_DP_FLOP", "pred_HP_FLOP", "pred_int_ops",
                "pred_bytes_total", "pred_xtime_ns", "pred_class_paper_a", "pred_class_fp",
                "error"]


def _from_log(x: pd.Series) -> np.ndarray:
    return np.clip(10.0 ** x.to_numpy(float) - 1.0, 0, None)


COUNT_MODES = ["cached", "auto", "never"]


def predict_batch(rows_csv: Path, sources: Path, predictor: str = "learned",
                  jobs: int | None = None, gpu_file: str | None = None,
                  progress: bool = True, count: str = "auto",
                  count_timeout: float = 120.0) -> pd.DataFrame:
    """Predict every row of *rows_csv*. *count*: ``auto`` (default) takes CPU-execution
    counts from the shipped counted table and the local count cache and runs each program
    not counted yet (once per program and arguments, in parallel; not those whose counting
    failed in the shipped benchmark runs); ``cached`` runs nothing; ``never`` uses none."""
    if predictor not in ("learned", "analytic"):
        raise UnknownNameError("batch predictor", predictor, ["learned", "analytic"])
    if count not in COUNT_MODES:
        raise UnknownNameError("count mode", count, COUNT_MODES)
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
        out["pred_origin"] = ""
        if predictor == "learned":
            if count != "never":
                sub = _with_counts(sub, df.iloc[idx].reset_index(drop=True), sub_gpus, sources,
                                   count == "auto", count_timeout, jobs, progress)
            has = has_counts(sub)
            log.info("%d of %d rows with CPU-execution counts (FLOPs and DRAM bytes counted, "
                     "the rest learned)", int(has.sum()), len(sub))
            out.loc[out.index[idx], "pred_origin"] = np.where(has, "counted", "learned")
            try:
                y = shipped_model().predict(features_frame(sub, sub_gpus))
                counts = y[["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]]
                times = y["time_ns"].to_numpy(float)
                time_range = y[["time_lo_ns", "time_hi_ns"]].to_numpy(float)
            except RidgelineError as e:
                err = [e_ or f"{type(e).__name__}: {e}" for e_ in err]
                out["pred_origin"] = ""
                ok[:] = False
                idx = idx[:0]
        else:
            counts = pd.DataFrame({
                "flops_sp": _from_log(sub["a_sp"]), "flops_dp": _from_log(sub["a_dp"]),
                "flops_hp": _from_log(sub["a_hp"]), "int_ops": _from_log(sub["a_int"]),
                "dram_bytes": _from_log(sub["a_bytes"]),
            })
            times = np.array([np.nan] * len(sub))
            out.loc[out.index[idx], "pred_origin"] = "analytic"
        _fill(out, idx, counts, times, sub_gpus)
        if predictor == "learned" and len(idx):
            # how likely the paper-a class is right, by where the row's counts come from
            out["pred_confidence"] = np.nan
            out.loc[out.index[idx], "pred_confidence"] = [
                class_confidence(Counts(*(float(v) for v in row)), gpu, bool(h))
                for row, gpu, h in zip(counts.itertuples(index=False), sub_gpus, has,
                                       strict=True)]
            for j, c in enumerate(("pred_xtime_lo_ns", "pred_xtime_hi_ns")):
                out[c] = np.nan
                out.loc[out.index[idx], c] = time_range[:, j]
    out["error"] = err
    return out


def _with_counts(sub: pd.DataFrame, rows: pd.DataFrame, gpus: list[Any], sources: Path,
                 run: bool, timeout: float, jobs: int | None, progress: bool) -> pd.DataFrame:
    """*sub* with the counted feature columns: from the shipped table, the local count cache
    and (with *run*) CPU-execution runs of the programs still missing, one run per (source,
    arguments), except those whose counting failed in the shipped benchmark runs."""
    keys = pd.DataFrame({"source": rows["source"].astype(str),
                         "exe_args": rows["exe_args"].astype(str).str.strip(),
                         "kernel": rows["kernel"].astype(str),
                         "gpu": [g.name for g in gpus],
                         "grid_size": rows["grid_size"].astype(str),
                         "block_size": rows["block_size"].astype(str)})
    filled = attach_counted(keys)
    base = sub.drop(columns=[c for c in COUNTED_COLUMNS if c in sub]).reset_index(drop=True)
    for c in COUNTED_COLUMNS:
        base[c] = filled[c].to_numpy(float)
    missing = base["c_has"].to_numpy(float) != 1.0
    todo: dict[tuple[str, str], list[int]] = {}
    for i in np.flatnonzero(missing):
        todo.setdefault((keys["source"][i], keys["exe_args"][i]), []).append(int(i))
    if not todo:
        return base
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    from ridgeline.predictors.counted import load_count_runs, record_for, run_program_counts

    known: dict[tuple[str, str], str] = {}
    if run:
        # programs the shipped benchmark runs counted (the kernels still missing were not
        # reached) or failed to count are not run again
        runs = load_count_runs()
        known = {k: "kernel not reached" if runs[k] == "counted" else runs[k]
                 for k in todo if k in runs}
        if known:
            log.info("%d program runs skipped: the shipped benchmark runs counted them or "
                     "failed to (%s)", len(known),
                     ", ".join(f"{c} {n}" for c, n in Counter(known.values()).most_common()))
        run = _toolchain_ok()
    all_gpus = sorted({g.name for g in gpus})

    def one(item: tuple[tuple[str, str], list[int]]) -> tuple[list[int], Any]:
        (source, args), where = item
        kernels = [str(rows["kernel"][i]) for i in where]
        go = run and (source, args) not in known
        try:
            recs, _ = run_program_counts(sources / source, args, kernels, all_gpus, timeout,
                                         run=go)
        except RidgelineError as e:
            return where, e
        return where, recs

    workers = max(1, min(jobs or (os.cpu_count() or 1), len(todo)))
    with ThreadPoolExecutor(workers) as pool, tqdm(
            total=len(todo), unit="program", desc="counting", disable=not progress,
            leave=False) as bar:
        for where, res in pool.map(one, todo.items()):
            bar.update(1)
            if isinstance(res, Exception):
                log.info("counting %s failed: %s", rows["source"][where[0]], res)
                continue
            for j in where:
                rec = record_for(res, str(rows["kernel"][j]), str(rows["model_type"][j]),
                                 rows["grid_size"][j], rows["block_size"][j])
                if rec is not None:
                    for c, v in launch_record_features(rec, gpus[j].name).items():
                        base.at[j, c] = v
    return base


def _toolchain_ok() -> bool:
    """Whether CPU-execution counting can build programs here (says why not, once)."""
    from ridgeline.counting.toolchain import find_toolchain

    try:
        find_toolchain()
    except RidgelineError as e:
        log.warning("no program is counted (FLOPs and DRAM bytes are learned instead): %s", e)
        return False
    return True


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
