"""The range of an anchored time prediction (``ridgeline predict --measured``): the spread of
log10(measured target time / anchored time) over every ordered GPU pair of the HeCBench rows
measured on both GPUs, development programs only (``is_sealed`` False), written to the
package's ``data/anchor/ratio_error.json`` with how it was made.

    python tools/anchor_range.py

Rows: the HeCBench rows of the shipped feature table (ground truth from
kernel-performance.csv), paired on every ordered pair of GPUs by (source, kernel, exe_args,
grid_size, block_size). Predictions: the shipped model with the counts ``predict-batch
--count cached`` gives (the shipped counted table via ``attach_counted``; rows without counts
learned from the analysed source). ``benchmarks/anchored_time.py`` measures the range and the
anchored time on the sealed programs.
"""

from __future__ import annotations

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
from ridgeline.hardware import load_catalog
from ridgeline.learning.columns import features_frame
from ridgeline.learning.counted import attach_counted
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, has_counts
from ridgeline.learning.featvec import LAUNCH_COLUMNS
from ridgeline.learning.model import TIME_RANGE
from ridgeline.learning.shipped import TABLE_FILE, shipped_model
from ridgeline.learning.training import train_from_table
from ridgeline.predictors.anchored import RANGE_FILE

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


def stored_range(dev: pd.DataFrame, made_by: str) -> dict[str, Any]:
    """The range file's content from the development pairs *dev*."""
    return {
        "log10_error_quantiles": quantiles(dev), "coverage": TIME_RANGE,
        "made": f"{made_by} at git {_git()} "
                f"({datetime.date.today().isoformat()}): log10(measured target time / "
                "anchored time) over every ordered GPU pair of the HeCBench rows measured on "
                f"both GPUs, development programs only ({len(dev)} pairs, "
                f"{dev['program'].nunique()} programs); shipped model, counts as "
                "predict-batch --count cached gives them",
    }


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python tools/anchor_range.py (no arguments)", file=sys.stderr)
        return 2
    m = pairs(predicted_rows())
    m = m[m["predicted"]]
    stored = stored_range(m[~m["sealed"]], "tools/anchor_range.py")
    path = Path(str(resources.files("ridgeline").joinpath(RANGE_FILE)))
    path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    q = stored["log10_error_quantiles"]
    print(f"wrote {path}: range (dev, {TIME_RANGE:.0%}) x{10 ** q['lo']:.3f} .. "
          f"x{10 ** q['hi']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
