"""Figures of a defaults-only counting run (benchmarks/counting_defaults.py report).

Per slice (development and sealed programs) and model type (CUDA, OpenMP, both): coverage of
(program, kernel) pairs and of rows; of the counted rows, SP+DP FLOPs within 5% of the
profiler's (rows with floating-point work), DRAM bytes within 2x, integer operations within
2x (OpenMP rows with the GPU runtime's per-thread work added, as the predictor adds it);
seconds per program run (median, 95th percentile); the pairs not counted by cause.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.counting.omp import omp_device_int_ops
from ridgeline.datasets.sealed import is_sealed
from ridgeline.learning.matching import launched_threads

#: the targets of the counting-with-defaults work
TARGETS = {"pair_coverage": 0.95, "flops_within_5pct": 0.95, "dram_within_2x": 0.92,
           "int_within_2x": 0.90, "seconds_median_max": 10.0}


def outcomes(rows: pd.DataFrame, results: dict[tuple[str, str], dict[str, Any]]
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(*rows* with each row's counted numbers and cause, the program runs)."""
    per: dict[tuple[str, int], dict[str, Any]] = {}
    runs = []
    for (src, args), r in results.items():
        runs.append({"source": src, "args": args, "seconds": r["seconds"],
                     "outcome": r["outcome"], "cause": r.get("cause", ""),
                     "model_type": "omp" if src.endswith("-omp") else "cuda"})
        for x in r["rows"]:
            why = "" if x["status"] == "counted" else (
                r.get("cause", "failed") if x["status"] == "failed" else x["status"])
            per[(x["dataset"], int(x["row"]))] = {**x, "cause": why}
    df = rows.copy()
    got = [per.get((d, int(i)), {"status": "not-run", "cause": "not-run"})
           for d, i in zip(df["dataset"], df["row"], strict=True)]
    for c in ("status", "cause", "flops_sp", "flops_dp", "int_ops", "dram_bytes",
              "omp_worksharing"):
        df[c] = [g.get(c) for g in got]
    df["flops"] = df["flops_sp"].astype(float) + df["flops_dp"].astype(float)
    extra = [omp_device_int_ops(launched_threads(gr, bl) or 0.0,
                                None if w is None or w != w else bool(w))
             if m == "omp" and s == "counted" else 0.0
             for m, s, gr, bl, w in zip(df["model_type"], df["status"], df["grid_size"],
                                        df["block_size"], df["omp_worksharing"], strict=True)]
    df["int"] = df["int_ops"].astype(float) + np.array(extra)
    df["sealed"] = [is_sealed(s) for s in df["source"]]
    run_df = pd.DataFrame(runs)
    run_df["sealed"] = [is_sealed(s) for s in run_df["source"]] if len(run_df) else []
    return df, run_df


def _share(ok: pd.Series) -> float | None:
    return round(float(ok.mean()), 4) if len(ok) else None


def figures(df: pd.DataFrame, runs: pd.DataFrame) -> dict[str, Any]:
    """The figures of one slice of rows and its program runs."""
    pairs = df.groupby(["source", "kernel"])["status"].apply(lambda s: (s == "counted").any())
    pair_cause = df[df["status"] != "counted"].groupby(["source", "kernel"])["cause"].first()
    causes = Counter(pair_cause[~pairs.reindex(pair_cause.index).fillna(False)].tolist())
    run_pairs = pairs[df.groupby(["source", "kernel"])["status"].apply(
        lambda s: (s != "not-run").all())]
    c = df[df["status"] == "counted"]
    fp = c[c["flops_gt"] > 0]
    fl_ok = (fp["flops"] - fp["flops_gt"]).abs() <= 0.05 * fp["flops_gt"]
    dr = c[c["dram_gt"] > 0]
    dr_ratio = dr["dram_bytes"].astype(float).clip(lower=1.0) / dr["dram_gt"]
    it = c[c["int_gt"] > 0]
    it_ratio = it["int"].clip(lower=1.0) / it["int_gt"]
    ran = runs[runs["cause"] != "missing-source"] if len(runs) else runs
    secs = ran["seconds"].astype(float) if len(ran) else pd.Series(dtype=float)
    return {
        "programs": int(runs["source"].nunique()) if len(runs) else 0,
        "program_runs": len(runs), "pairs": len(pairs), "pairs_counted": int(pairs.sum()),
        "pair_coverage": _share(pairs), "pairs_run": len(run_pairs),
        "pair_coverage_of_exported": round(int(pairs.sum()) / max(
            1, len(pairs) - causes.get("missing-source", 0)), 4),
        "pair_coverage_of_run": _share(run_pairs), "rows": len(df), "rows_counted": len(c),
        "row_coverage": _share(df["status"] == "counted"),
        "rows_with_fp_work": len(fp), "flops_within_5pct": _share(fl_ok),
        "rows_with_dram": len(dr), "dram_within_2x": _share(dr_ratio.between(0.5, 2.0)),
        "rows_with_int": len(it), "int_within_2x": _share(it_ratio.between(0.5, 2.0)),
        "int_median_ratio": round(float(it_ratio.median()), 4) if len(it) else None,
        "seconds_median": round(float(secs.median()), 2) if len(secs) else None,
        "seconds_p95": round(float(secs.quantile(0.95)), 2) if len(secs) else None,
        "seconds_total": round(float(secs.sum()), 1),
        "pair_misses_by_cause": dict(causes.most_common()),
    }


def report(a: argparse.Namespace, rows: pd.DataFrame,
           results: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    df, runs = outcomes(rows, results)
    out: dict[str, Any] = {"results": str(a.out), "program_runs_recorded": len(results),
                           "targets": TARGETS, "slices": {}}
    slices = (("development", False),) if a.dev_only else (("development", False),
                                                            ("sealed", True))
    if a.dev_only:
        df = df[~df["sealed"]]
    for slice_name, sealed in slices:
        for model in ("cuda", "omp", "all"):
            d = df[df["sealed"] == sealed]
            r = runs[runs["sealed"] == sealed] if len(runs) else runs
            if model != "all":
                d = d[d["model_type"] == model]
                r = r[r["model_type"] == model] if len(r) else r
            out["slices"][f"{slice_name}/{model}"] = figures(d, r)
    out["rows_counted_by_dataset"] = {
        ds: {"counted": int((g["status"] == "counted").sum()), "rows": len(g)}
        for ds, g in df.groupby("dataset")}
    _print(out)
    if a.summary:
        Path(a.summary).write_text(json.dumps(out, indent=1) + "\n")
    return out


def _print(out: dict[str, Any]) -> None:
    keys = ["programs", "pairs", "pair_coverage", "pairs_run", "pair_coverage_of_run",
            "row_coverage", "flops_within_5pct",
            "dram_within_2x", "int_within_2x", "seconds_median", "seconds_p95"]
    names = list(out["slices"])
    print("figure".ljust(20) + "".join(n.rjust(18) for n in names))
    for k in keys:
        print(k.ljust(20) + "".join(str(out["slices"][n][k]).rjust(18) for n in names))
    for n in names:
        print(f"{n} misses: {out['slices'][n]['pair_misses_by_cause']}")
