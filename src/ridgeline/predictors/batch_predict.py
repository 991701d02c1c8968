"""The ``predict-batch`` contract: every input row out, in order, with predictions or an error.

Added columns (stable): pred_SP_FLOP, pred_DP_FLOP, pred_HP_FLOP, pred_int_ops,
pred_bytes_total, pred_xtime_ns, pred_class_paper_a, pred_class_fp, error; then pred_origin
("counted": FLOPs and DRAM bytes from CPU execution, "learned", "analytic"; empty on errors),
for the learned predictor pred_confidence (how likely the paper-a class is right) and
pred_xtime_lo_ns / pred_xtime_hi_ns (the range that holds the measured time in
learned.TIME_RANGE of cases) and pred_time_note (a time brought down to the slowest
plausible time of its counts, or above it and why: :mod:`ridgeline.learning.slow_bound`),
and last count_status and count_error: whether the row's counts come from CPU execution and,
when not, why (:data:`COUNT_STATUSES`; count_error is
``<cause>: <first error line>``). Rows are checked before anything runs
(:mod:`ridgeline.predictors.batch_rows`); an error names the row's line in the file.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from ridgeline.counting import first_build_error, shipped_gpu
from ridgeline.datasets import read_strict_csv, require_columns
from ridgeline.errors import RidgelineError, UnknownNameError
from ridgeline.hardware import Counts, get_rule, load_catalog, time_lower_bound
from ridgeline.learning.columns import features_frame
from ridgeline.learning.confidence import class_confidence
from ridgeline.learning.count_cache import run_program_counts
from ridgeline.learning.counted import attach_counted, load_count_runs
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, has_counts, launch_record_features
from ridgeline.learning.matching import record_for
from ridgeline.learning.shipped import shipped_model
from ridgeline.learning.slow_bound import time_notes
from ridgeline.limits import COUNT_TIMEOUT_S
from ridgeline.predictors.batch import analyze_rows
from ridgeline.predictors.batch_anchor import anchor_columns, anchor_rows
from ridgeline.predictors.batch_rows import row_problems
from ridgeline.predictors.physical_predictor import physical_times
from ridgeline.sources.build import ProgramBuild

__all__ = ["predict_batch", "predict_rows", "output_columns", "check_settings", "PRED_COLUMNS",
           "REQUIRED", "COUNT_MODES", "COUNT_COLUMNS", "COUNT_STATUSES"]

log = logging.getLogger(__name__)

REQUIRED = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device"]
PRED_COLUMNS = ["pred_SP_FLOP", "pred_DP_FLOP", "pred_HP_FLOP", "pred_int_ops",
                "pred_bytes_total", "pred_xtime_ns", "pred_class_paper_a", "pred_class_fp",
                "error"]
LEARNED_COLUMNS = ["pred_confidence", "pred_xtime_lo_ns", "pred_xtime_hi_ns",
                   "pred_time_note"]
COUNT_COLUMNS = ["count_status", "count_error"]
#: count_status values (empty on rows with an error)
COUNT_STATUSES = {
    "counted": "FLOPs and DRAM bytes from CPU execution (shipped table, cache or a run)",
    "partial": "counted, by a run that failed afterwards (time limit, crash, memory): the "
               "counts stand, count_error says how the run ended",
    "failed": "the counting run failed (now, or a cached failure)",
    "skipped": "not run: the shipped benchmark runs failed or did not reach the kernel, or "
               "no toolchain builds programs here",
    "not-cached": "--count cached and no counts in the shipped table or the local cache",
    "no-launch": "the program ran but no counted launch matches the row's kernel and sizes",
    "off": "--count never, or a predictor that takes no counts",
}


def _from_log(x: pd.Series) -> np.ndarray:
    return np.clip(10.0 ** x.to_numpy(float) - 1.0, 0, None)


COUNT_MODES = ["cached", "auto", "never"]
#: predictors predict-batch runs: the learned one, its counts with the physical time, the
#: analysed source's counts and roofline time
BATCH_PREDICTORS = ("learned", "physical", "analytic")


def check_settings(predictor: str, count: str) -> None:
    if predictor not in BATCH_PREDICTORS:
        raise UnknownNameError("batch predictor", predictor, list(BATCH_PREDICTORS))
    if count not in COUNT_MODES:
        raise UnknownNameError("count mode", count, COUNT_MODES)


def output_columns(columns: list[str], predictor: str) -> list[str]:
    """The output's columns: the input's, then the added ones in their stable order."""
    extra = LEARNED_COLUMNS if predictor != "analytic" else []
    return list(dict.fromkeys([*columns, *PRED_COLUMNS, "pred_origin", *extra,
                               *COUNT_COLUMNS, *anchor_columns(columns)]))


def predict_batch(rows_csv: Path, sources: Path, predictor: str = "learned",
                  jobs: int | None = None, gpu_file: str | None = None,
                  progress: bool = True, count: str = "auto",
                  count_timeout: float = COUNT_TIMEOUT_S,
                  build: ProgramBuild | None = None) -> pd.DataFrame:
    """Predict every row of *rows_csv* (read by :func:`ridgeline.datasets.read_strict_csv`:
    a file whose rows do not all have the header's fields is refused). *count*: ``auto``
    (default) takes CPU-execution counts from the shipped counted table and the local count
    cache and runs each program not counted yet (once per program and arguments, in
    parallel; not those whose counting failed in the shipped benchmark runs); ``cached``
    runs nothing; ``never`` uses none."""
    check_settings(predictor, count)
    df, lines = read_strict_csv(rows_csv)
    require_columns(df, REQUIRED, str(rows_csv))
    return predict_rows(df, sources, load_catalog(gpu_file), predictor, jobs, progress, count,
                        count_timeout, lines, Path(rows_csv).name, build=build)


def predict_rows(df: pd.DataFrame, sources: Path, catalog: Any, predictor: str = "learned",
                 jobs: int | None = None, progress: bool = True, count: str = "auto",
                 count_timeout: float = COUNT_TIMEOUT_S, lines: list[int] | None = None,
                 where: str = "", build: ProgramBuild | None = None) -> pd.DataFrame:
    """The output rows of the batch rows *df* (text columns); *lines* (each row's line in
    the file *where*) are named in the error texts."""
    checked = [row_problems(r, sources, catalog) for r in df.to_dict("records")]
    err = ["; ".join(p) for p, _ in checked]
    gpus: list[Any] = [g for _, g in checked]
    valid = np.flatnonzero([e == "" for e in err])
    feats = analyze_rows(df.iloc[valid].reset_index(drop=True), sources, jobs=jobs,
                         progress=progress, build=build)
    for k, i in enumerate(valid):
        err[i] = str(feats["error"].fillna("")[k])
    ok = np.array([e == "" for e in err])
    out = df.copy().reset_index(drop=True)
    for c in output_columns([], predictor):
        text = c.startswith(("pred_class", "pred_origin", "pred_time_note", "count_"))
        out[c] = "" if text else np.nan
    idx = np.flatnonzero(ok)
    if len(idx):
        sub = feats.iloc[[int(np.searchsorted(valid, i)) for i in idx]].reset_index(drop=True)
        model_err = _predict_ok(out, idx, sub, df.iloc[idx].reset_index(drop=True),
                                [gpus[i] for i in idx], sources, predictor, count,
                                count_timeout, jobs, progress, build)
        if model_err:  # nothing was filled
            err = [e or model_err for e in err]
    out["error"] = [_at(e, lines[i] if lines else None, where) for i, e in enumerate(err)]
    cols = output_columns(list(df.columns), predictor)
    if not anchor_columns(list(df.columns)):
        return out[cols]
    # measured_gpu/measured_ns: times anchored on the measured GPU's prediction
    return anchor_rows(out[[c for c in cols if c != "pred_anchor"]], df, catalog,
                       lambda extra: predict_rows(extra, sources, catalog, predictor, jobs,
                                                  False, count, count_timeout),
                       lambda i: _at("x", lines[i] if lines else None, where)[1:])[cols]


def _at(error: str, line: int | None, where: str) -> str:
    if not error or line is None:
        return error
    return f"{error} ({where + ' ' if where else ''}line {line})"


def _predict_ok(out: pd.DataFrame, idx: np.ndarray, sub: pd.DataFrame, rows: pd.DataFrame,
                gpus: list[Any], sources: Path, predictor: str, count: str,
                count_timeout: float, jobs: int | None, progress: bool,
                build: ProgramBuild | None = None) -> str:
    """Fill *out*'s rows *idx* (analysed without error: *sub*); returns an error text when
    the model fails for all of them."""
    at = out.index[idx]
    if predictor == "analytic":
        counts = pd.DataFrame({
            "flops_sp": _from_log(sub["a_sp"]), "flops_dp": _from_log(sub["a_dp"]),
            "flops_hp": _from_log(sub["a_hp"]), "int_ops": _from_log(sub["a_int"]),
            "dram_bytes": _from_log(sub["a_bytes"]),
        })
        out.loc[at, "pred_origin"] = "analytic"
        out.loc[at, "count_status"] = "off"
        _fill(out, idx, counts, np.full(len(sub), np.nan), gpus)
        return ""
    why: dict[int, tuple[str, str]] = {}
    if count == "never":
        why = {i: ("off", "") for i in range(len(sub))}
    else:
        sub, why = _with_counts(sub, rows, gpus, sources, count == "auto", count_timeout,
                                jobs, progress, build)
    has = has_counts(sub)
    log.info("%d of %d rows with CPU-execution counts (FLOPs and DRAM bytes counted, "
             "the rest learned)", int(has.sum()), len(sub))
    try:
        X = features_frame(sub, gpus)
        y = shipped_model().predict(X)
        notes = time_notes(X, y)
        if predictor == "physical":
            phys = physical_times(X, y, gpus)
            y = y.assign(**{k: phys[k].to_numpy(float) for k in ("time_ns", "time_lo_ns",
                                                                   "time_hi_ns")})
            notes = list(phys["note"])
    except RidgelineError as e:
        return f"{type(e).__name__}: {e}"
    counts = y[["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]]
    out.loc[at, "pred_origin"] = np.where(has, "counted", "learned")
    status = []
    for i, h in enumerate(has):
        st = why.get(i, ("counted", "") if h else ("not-cached", ""))
        if not h and st[0] == "partial":  # a record that gave no usable counts
            st = ("failed", st[1])
        status.append(st)
    out.loc[at, "count_status"] = [s for s, _ in status]
    out.loc[at, "count_error"] = [c for _, c in status]
    _fill(out, idx, counts, y["time_ns"].to_numpy(float), gpus)
    # how likely the paper-a class is right, by where the row's counts come from
    out.loc[at, "pred_confidence"] = [
        class_confidence(Counts(*(float(v) for v in row)), gpu, bool(h))
        for row, gpu, h in zip(counts.itertuples(index=False), gpus, has, strict=True)]
    out.loc[at, "pred_xtime_lo_ns"] = y["time_lo_ns"].to_numpy(float)
    out.loc[at, "pred_xtime_hi_ns"] = y["time_hi_ns"].to_numpy(float)
    out.loc[at, "pred_time_note"] = notes
    return ""


def _with_counts(sub: pd.DataFrame, rows: pd.DataFrame, gpus: list[Any], sources: Path,
                 run: bool, timeout: float, jobs: int | None, progress: bool,
                 build: ProgramBuild | None = None,
                 ) -> tuple[pd.DataFrame, dict[int, tuple[str, str]]]:
    """*sub* with the counted feature columns: from the shipped table, the local count cache
    and (with *run*) CPU-execution runs of the programs still missing, one run per (source,
    arguments), except those whose counting failed in the shipped benchmark runs; and for
    the rows left without counts, why (count_status, count_error)."""
    keys = pd.DataFrame({"source": rows["source"].astype(str),
                         "exe_args": rows["exe_args"].astype(str).str.strip(),
                         "kernel": rows["kernel"].astype(str),
                         "gpu": [g.name for g in gpus],
                         "grid_size": rows["grid_size"].astype(str),
                         "block_size": rows["block_size"].astype(str)})
    filled = attach_counted(keys)
    if build is not None and build != ProgramBuild():
        # the shipped table holds the programs' own builds, not these flags: count anew
        filled = filled.assign(**{c: np.nan for c in COUNTED_COLUMNS})
    base = sub.drop(columns=[c for c in COUNTED_COLUMNS if c in sub]).reset_index(drop=True)
    for c in COUNTED_COLUMNS:
        base[c] = filled[c].to_numpy(float)
    missing = base["c_has"].to_numpy(float) != 1.0
    todo: dict[tuple[str, str], list[int]] = {}
    for i in np.flatnonzero(missing):
        todo.setdefault((keys["source"][i], keys["exe_args"][i]), []).append(int(i))
    if not todo:
        return base, {}
    return base, _count_missing(base, todo, rows, gpus, sources, run, timeout, jobs,
                                progress, build)


def _count_missing(base: pd.DataFrame, todo: dict[tuple[str, str], list[int]],
                   rows: pd.DataFrame, gpus: list[Any], sources: Path, run: bool,
                   timeout: float, jobs: int | None, progress: bool,
                   build: ProgramBuild | None = None) -> dict[int, tuple[str, str]]:
    """Fill *base*'s rows of each (source, arguments) in *todo* from the count cache or a
    run; the count status of each of those rows."""
    known: dict[tuple[str, str], str] = {}
    no_tools = ""
    if run:
        known = _shipped_outcomes(todo)
        no_tools = _toolchain_problem()
    # GPUs of a user's file go as their entries: their L2 models the DRAM bytes too
    by_name = {g.name: g for g in gpus}
    all_gpus = [g if not shipped_gpu(g) else n for n, g in sorted(by_name.items())]

    def one(item: tuple[tuple[str, str], list[int]]) -> tuple[list[int], Any]:
        (source, args), where = item
        kernels = [str(rows["kernel"][i]) for i in where]
        go = run and not no_tools and (source, args) not in known
        try:
            recs, _ = run_program_counts(sources / source, args, kernels, all_gpus, timeout,
                                         run=go, build=build)
        except RidgelineError as e:
            log.info("counting %s failed: %s", source, e)
            return where, _failure(e)
        if not recs and not go:
            return where, _not_run(run, known.get((source, args)), no_tools)
        return where, recs

    why: dict[int, tuple[str, str]] = {}
    workers = max(1, min(jobs or (os.cpu_count() or 1), len(todo)))
    with ThreadPoolExecutor(workers) as pool, tqdm(
            total=len(todo), unit="program", desc="counting", disable=not progress,
            leave=False) as bar:
        for where, res in pool.map(one, todo.items()):
            bar.update(1)
            for j in where:
                why[j] = res if isinstance(res, tuple) else _use_record(base, j, res, rows,
                                                                         gpus[j].name)
    return why


def _use_record(base: pd.DataFrame, j: int, recs: list[dict[str, Any]], rows: pd.DataFrame,
                gpu: str) -> tuple[str, str]:
    """Fill row *j* of *base* from the run's records *recs*; its count status: counted,
    partial (counted by a run that then failed: time limit, crash, memory), failed (such a
    run did not reach the row's kernel) or no-launch."""
    rec = record_for(recs, str(rows["kernel"][j]), str(rows["model_type"][j]),
                     rows["grid_size"][j], rows["block_size"][j])
    stopped = next((str(r["run_stopped"]) for r in recs if r.get("run_stopped")), "")
    if rec is None:
        if stopped:
            return ("failed", f"{stopped}; kernel {rows['kernel'][j]!r} not reached")
        return ("no-launch", f"no matching launch: the run counted no launch of kernel "
                f"{rows['kernel'][j]!r} with grid {rows['grid_size'][j]!r} and block "
                f"{rows['block_size'][j]!r} (or several, told apart by nothing)")
    for c, v in launch_record_features(rec, gpu).items():
        base.at[j, c] = v
    return ("partial", stopped) if stopped else ("counted", "")


def _shipped_outcomes(todo: dict[tuple[str, str], list[int]]) -> dict[tuple[str, str], str]:
    """Programs the shipped benchmark runs counted (the kernels still missing were not
    reached) or failed to count: they are not run again."""
    runs = load_count_runs()
    known = {k: "kernel not reached" if runs[k] == "counted" else runs[k]
             for k in todo if k in runs}
    if known:
        log.info("%d program runs skipped: the shipped benchmark runs counted them or "
                 "failed to (%s)", len(known),
                 ", ".join(f"{c} {n}" for c, n in Counter(known.values()).most_common()))
    return known


def _not_run(run: bool, shipped: str | None, no_tools: str) -> tuple[str, str]:
    if not run:
        return ("not-cached", "not in the count cache: --count cached runs nothing")
    if no_tools:
        return ("skipped", f"no toolchain: {no_tools}")
    if shipped == "kernel not reached":
        return ("skipped", "kernel not reached in the shipped benchmark run of this program "
                "and arguments: not run again")
    return ("skipped", f"shipped run failed ({shipped}): the shipped benchmark runs could not "
            "count this program with these arguments; not run again")


def _failure(e: Exception) -> tuple[str, str]:
    """count_status and count_error of a failed counting run: its cause and first error
    line."""
    cause = getattr(e, "cause", None) or type(e).__name__
    detail = str(getattr(e, "detail", "") or e)
    return ("failed", f"{cause}: {first_error_line(detail)}")


def first_error_line(text: str, width: int = 300) -> str:
    """The line of *text* that names its real error (an undefined symbol before the
    driver's ``linker command failed``: :func:`ridgeline.counting.first_build_error`), else
    the first that says ``error``, else its first non-blank line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    hit = first_build_error(lines) or (lines[0] if lines else "")
    return hit if len(hit) <= width else hit[:width - 3] + "..."


def _toolchain_problem() -> str:
    """Why CPU-execution counting cannot build programs here ("" when it can; says why
    once)."""
    from ridgeline.counting.toolchain import find_toolchain

    try:
        find_toolchain()
    except RidgelineError as e:
        log.warning("no program is counted (FLOPs and DRAM bytes are learned instead): %s", e)
        return first_error_line(str(e))
    return ""


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
