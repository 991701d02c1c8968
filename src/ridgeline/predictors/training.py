"""Build the derived feature table from program sources + ground truth, and fit the model.

The table holds only derived numbers (launch features, measured counts, identifiers), never
source code, so it may ship inside the package next to the model.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ridgeline import datasets
from ridgeline.hardware import get_gpu
from ridgeline.predictors.batch import analyze_rows
from ridgeline.predictors.learned import TARGETS, CountModel, features_frame, fit_table

__all__ = ["build_table", "train_from_table", "ID_COLUMNS", "with_gpu_features"]

#: ``kernel_signature``: the profiler's full kernel name where a dataset has one (paper-a's
#: ``Kernel Name``, ``void k<float>(T1 *, int)``: which template instantiation), else ""
ID_COLUMNS = ["dataset", "source", "program", "kernel", "model_type", "gpu", "grid_size",
              "block_size", "exe_args", "label", "kernel_signature"]


def _rows(data_dir: str | Path | None) -> pd.DataFrame:
    h = datasets.load("hecbench", data_dir)
    h["dataset"] = "hecbench"
    h["label"] = ""
    h["kernel_signature"] = ""
    p = datasets.load("paper-a", data_dir)
    p["dataset"] = "paper-a"
    p["grid_size"] = p["Grid Size"]
    p["block_size"] = p["Block Size"]
    cols = ID_COLUMNS + TARGETS
    return pd.concat([h[cols], p[cols]], ignore_index=True)


def build_table(sources: str | Path, data_dir: str | Path | None = None,
                jobs: int | None = None, progress: bool = True) -> pd.DataFrame:
    """Identifiers, measured targets and analysed launch features of every shared row."""
    rows = _rows(data_dir)
    keys = ["source", "kernel", "model_type", "grid_size", "block_size", "exe_args"]
    uniq = rows[keys].astype(str).drop_duplicates().reset_index(drop=True)
    feats = analyze_rows(uniq, Path(sources), jobs=jobs, progress=progress)
    uniq = pd.concat([uniq, feats], axis=1)
    merged = rows.astype({k: str for k in keys}).merge(uniq, on=keys, how="left")
    return merged


def with_gpu_features(table: pd.DataFrame, counted: pd.DataFrame | None = None
                      ) -> pd.DataFrame:
    """GPU catalog columns added; counted columns (the shipped counted table, or *counted*)
    attached when the table lacks them."""
    if "c_has" not in table or counted is not None:
        from ridgeline.learning.counted import attach_counted

        err = table["error"].to_numpy() if "error" in table else None
        table = attach_counted(table, counted)
        if err is not None:
            table["error"] = err
    gpus = [get_gpu(g) for g in table["gpu"]]
    launch_cols = [c for c in table.columns if c not in ("error",)]
    base = table[launch_cols].reset_index(drop=True)
    full = features_frame(base, gpus)
    full["error"] = table["error"].fillna("").to_numpy()
    return full


def train_from_table(table: pd.DataFrame, **kw: object) -> CountModel:
    """Fit on the hecbench rows of a built table (paper-a rows are evaluation only)."""
    t = with_gpu_features(table[table["dataset"] == "hecbench"])
    return fit_table(t, **kw)
