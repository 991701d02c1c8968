"""Anchored time: a kernel measured on one GPU, predicted on another as measured x (the
shipped model's predicted time there / its predicted time on the measured GPU), against two
naive baselines (measured x DRAM bandwidth ratio; measured x FP32 peak ratio).

    python benchmarks/anchored_time.py [--write] [--json OUT.json]

Rows: the HeCBench rows of the shipped feature table (ground truth from
kernel-performance.csv), paired on every ordered pair of GPUs by (source, kernel, exe_args,
grid_size, block_size). Predictions: the shipped model with the counts ``predict-batch
--count cached`` gives (the shipped counted table via ``attach_counted``; rows without counts
learned from the analysed source). The range's quantiles come from the development programs
only (``is_sealed`` False) and are written to ridgeline/data/anchor/ratio_error.json with
--write; the figures are reported on the sealed programs only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets.sealed import is_sealed, sealed_mask
from ridgeline.evaluation.provenance import provenance
from ridgeline.hardware import load_catalog
from ridgeline.predictors.anchored import RANGE_FILE
from ridgeline.predictors.counted import COUNTED_COLUMNS, attach_counted, has_counts
from ridgeline.predictors.featvec import LAUNCH_COLUMNS
from ridgeline.predictors.learned import TABLE_FILE, TIME_RANGE, features_frame, shipped_model
from ridgeline.predictors.training import train_from_table

KEY = ["source", "kernel", "exe_args", "grid_size", "block_size"]


def predicted_rows(dev_model: bool = False) -> pd.DataFrame:
    """The HeCBench rows with the shipped model's time (``pred_ns``) as predict-batch
    --count cached gives it, and whether the row had counts (``counted``). *dev_model*: a
    model of the shipped settings fitted on the development programs' rows only instead
    (the shipped one was fitted on every HeCBench row, the sealed programs' too)."""
    models = resources.files("ridgeline").joinpath("models")
    with models.joinpath(TABLE_FILE).open("rb") as fh:
        t = pd.read_parquet(fh)
    t = t[t["dataset"] == "hecbench"].reset_index(drop=True)
    t["exe_args"] = t["exe_args"].fillna("").astype(str).str.strip()
    # a key listed more than once for a GPU (template instances, repeated launches): paired
    # by order of occurrence
    t["occurrence"] = t.groupby([*KEY, "gpu"]).cumcount()
    cat = load_catalog()
    gpus = [cat.get(g) for g in t["gpu"]]
    keys = pd.DataFrame({"source": t["source"].astype(str), "exe_args": t["exe_args"],
                         "kernel": t["kernel"].astype(str), "gpu": [g.name for g in gpus],
                         "grid_size": t["grid_size"].astype(str),
                         "block_size": t["block_size"].astype(str)})
    filled = attach_counted(keys)
    base = t[LAUNCH_COLUMNS].copy()
    for c in COUNTED_COLUMNS:
        base[c] = filled[c].to_numpy(float)
    model = shipped_model()
    if dev_model:
        full = t.assign(program=t["program"].astype(str))
        model = train_from_table(full[~sealed_mask(full)])
    y = model.predict(features_frame(base, gpus))
    out = t[[*KEY, "occurrence", "program", "gpu", "time_ns"]].copy()
    out["gpu"] = [g.name for g in gpus]
    # rows whose source analysis failed get an error from predict-batch: no prediction
    out["pred_ns"] = np.where(t["error"].fillna("") == "", y["time_ns"].to_numpy(float), np.nan)
    out["counted"] = has_counts(base)
    out["bw"] = [g.bandwidth for g in gpus]
    out["fp32"] = [g.peak("sp") for g in gpus]
    return out


def pairs(rows: pd.DataFrame) -> pd.DataFrame:
    """Every ordered pair (measured GPU a, target b) of rows with the same key."""
    m = rows.merge(rows, on=[*KEY, "occurrence", "program"], suffixes=("_a", "_b"))
    m = m[m["gpu_a"] != m["gpu_b"]].reset_index(drop=True)
    m = m[(m["time_ns_a"] > 0) & (m["time_ns_b"] > 0)].reset_index(drop=True)
    m["predicted"] = (m["pred_ns_a"] > 0) & (m["pred_ns_b"] > 0)
    m["anchored"] = m["time_ns_a"] * m["pred_ns_b"] / m["pred_ns_a"]
    m["bw_ratio"] = m["time_ns_a"] * m["bw_a"] / m["bw_b"]
    m["fp32_ratio"] = m["time_ns_a"] * m["fp32_a"] / m["fp32_b"]
    m["sealed"] = [is_sealed(p) for p in m["program"]]
    return m


def figures(truth: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    r = pred / truth
    return {"within_2x": float(np.mean((r >= 0.5) & (r <= 2.0))),
            "median_ape": float(np.median(np.abs(r - 1.0)))}


def quantiles(dev: pd.DataFrame) -> dict[str, Any]:
    err = np.log10((dev["time_ns_b"] / dev["anchored"]).to_numpy(float))
    lo, hi = (1 - TIME_RANGE) / 2, 1 - (1 - TIME_RANGE) / 2
    return {"lo": float(np.quantile(err, lo)), "hi": float(np.quantile(err, hi)),
            "q_lo": lo, "q_hi": hi, "median": float(np.median(err))}


def _git() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true",
                    help="store the development programs' range quantiles in the package")
    ap.add_argument("--json", default=None, metavar="OUT.json")
    ap.add_argument("--dev-model", action="store_true",
                    help="predict with a model fitted on the development programs only (a "
                    "check that the shipped model's fit on the sealed rows does not carry the "
                    "figures); not with --write")
    a = ap.parse_args(argv)
    if a.write and a.dev_model:
        ap.error("--write stores the shipped model's range; drop --dev-model")
    print("python benchmarks/anchored_time.py " + " ".join(argv))
    rows = predicted_rows(a.dev_model)
    print("model: " + ("fitted on the development programs only (--dev-model)" if a.dev_model
                       else "the shipped model (fitted on every HeCBench row)"))
    allp = pairs(rows)
    m = allp[allp["predicted"]]
    dev, seal = m[~m["sealed"]], m[m["sealed"]]
    n_seal = int(allp["sealed"].sum())
    print(f"sealed pairs: {len(seal)} of {n_seal} measured on both GPUs have a prediction on "
          f"both (the rest: source analysis failed, predict-batch gives an error); figures on "
          "those, for all three predictors alike")
    q = quantiles(dev)
    stored = {
        "log10_error_quantiles": q, "coverage": TIME_RANGE,
        "made": f"benchmarks/anchored_time.py --write at git {_git()} "
                f"({datetime.date.today().isoformat()}): log10(measured target time / "
                "anchored time) over every ordered GPU pair of the HeCBench rows measured on "
                f"both GPUs, development programs only ({len(dev)} pairs, "
                f"{dev['program'].nunique()} programs); shipped model, counts as "
                "predict-batch --count cached gives them",
    }
    if a.write:
        path = Path(str(resources.files("ridgeline").joinpath(RANGE_FILE)))
        path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    res: dict[str, Any] = {
        "provenance": provenance(dataset="hecbench (shipped feature table)",
                                 split="sealed programs (range: development programs)",
                                 predictor="learned, " + ("fitted on development programs"
                                                          if a.dev_model else "shipped model"),
                                 counts="shipped counted table (predict-batch --count cached)"),
        "range": stored, "pairs": {}}
    print(f"counts: {int(rows['counted'].sum())} of {len(rows)} rows with CPU-execution counts "
          "from the shipped counted table (predict-batch --count cached), the rest learned")
    print(f"range (dev, {TIME_RANGE:.0%}): x{10 ** q['lo']:.3f} .. x{10 ** q['hi']:.3f}")
    inside = []
    for (ga, gb), s in seal.groupby(["gpu_a", "gpu_b"], sort=True):
        tb = s["time_ns_b"].to_numpy(float)
        f = {k: figures(tb, s[k].to_numpy(float)) for k in ("anchored", "bw_ratio", "fp32_ratio")}
        cov = s["time_ns_b"].between(s["anchored"] * 10 ** q["lo"],
                                     s["anchored"] * 10 ** q["hi"])
        inside.append(cov.to_numpy())
        res["pairs"][f"{ga} -> {gb}"] = {"rows": len(s), "programs": int(s["program"].nunique()),
                                        **f, "range_coverage": float(cov.mean())}
        print(f"{ga:>22s} -> {gb:22s} {len(s):4d} rows {s['program'].nunique():3d} progs | "
              + " | ".join(f"{k} 2x {v['within_2x']:.1%} mAPE {v['median_ape']:.1%}"
                           for k, v in f.items()) + f" | in range {cov.mean():.1%}")
    for name, part in (("dev", dev), ("sealed", seal)):
        tb = part["time_ns_b"].to_numpy(float)
        f = {k: figures(tb, part[k].to_numpy(float))
             for k in ("anchored", "bw_ratio", "fp32_ratio")}
        res[name] = {"pairs": len(part), "programs": int(part["program"].nunique()), **f}
        print(f"all {name}: {len(part)} pairs {part['program'].nunique()} programs | "
              + " | ".join(f"{k} 2x {v['within_2x']:.1%} mAPE {v['median_ape']:.1%}"
                           for k, v in f.items()))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
